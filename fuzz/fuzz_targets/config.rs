//! The browser's config file (TOML: `[keys.*]` keymap overrides and `[theme]`), parsed
//! as the browser parses it, in every colour mode.

#![no_main]

use libfuzzer_sys::fuzz_target;
use memlens::tui::config::Config;
use memlens::tui::theme::ColorMode;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for mode in [ColorMode::TrueColor, ColorMode::Ansi256, ColorMode::NoColor] {
        let _ = Config::parse(text, mode);
    }
});
