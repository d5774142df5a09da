//! The TOML config file (`$XDG_CONFIG_HOME/memlens/config.toml`): key overrides, theme
//! colours, mouse and tracked reads. A bad file is reported on screen and the defaults
//! are used.

use super::keymap::Keymap;
use super::theme::{ColorMode, Theme, ThemeConfig};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    /// `false` leaves the mouse alone.
    mouse: Option<bool>,
    /// `false`: opening a memory does not count as a read.
    track_reads: Option<bool>,
    /// `[keys.<section>]` tables of `"key" = "action"`.
    #[serde(default)]
    keys: BTreeMap<String, BTreeMap<String, String>>,
    /// `[theme]` colours.
    #[serde(default)]
    theme: ThemeConfig,
}

/// What the program runs with.
#[derive(Debug, Clone)]
pub struct Config {
    /// Keys → actions.
    pub keymap: Keymap,
    /// Colours.
    pub theme: Theme,
    /// Whether to capture the mouse.
    pub mouse: bool,
    /// Whether opening a memory in the detail pane counts as a read.
    pub track_reads: bool,
    /// The problem with the file, when it could not be used (the defaults are in force).
    pub error: Option<String>,
}

/// The default config file: `$XDG_CONFIG_HOME/memlens/config.toml`.
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "memlens")
        .map(|dirs| dirs.config_dir().join("config.toml"))
}

impl Config {
    /// The defaults.
    pub fn defaults(mode: ColorMode) -> Config {
        Config {
            keymap: Keymap::default(),
            theme: Theme::new(mode),
            mouse: true,
            track_reads: true,
            error: None,
        }
    }

    /// Reads `path` (a missing file is no error); on any problem returns the defaults
    /// with the problem in `error`.
    pub fn load(path: Option<&Path>, mode: ColorMode) -> Config {
        let Some(path) = path else {
            return Config::defaults(mode);
        };
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Config::defaults(mode),
            Err(e) => return Config::failed(mode, format!("{}: {e}", path.display())),
        };
        match Config::parse(&text, mode) {
            Ok(config) => config,
            Err(problem) => Config::failed(mode, format!("{}: {problem}", path.display())),
        }
    }

    fn failed(mode: ColorMode, error: String) -> Config {
        Config {
            error: Some(format!("config not used: {error}")),
            ..Config::defaults(mode)
        }
    }

    /// Reads a config from TOML text; the error names the first problem (and how many
    /// more there are).
    pub fn parse(text: &str, mode: ColorMode) -> Result<Config, String> {
        let file: ConfigFile = toml::from_str(text).map_err(|e| one_line(&e.to_string()))?;
        let keymap = Keymap::with_overrides(&file.keys).map_err(|errors| {
            let more = errors.len() - 1;
            let first = errors.first().map(ToString::to_string).unwrap_or_default();
            if more > 0 {
                format!("{first} (and {more} more)")
            } else {
                first
            }
        })?;
        let theme = Theme::with_config(mode, &file.theme).map_err(|e| e.to_string())?;
        Ok(Config {
            keymap,
            theme,
            mouse: file.mouse.unwrap_or(true),
            track_reads: file.track_reads.unwrap_or(true),
            error: None,
        })
    }
}

/// toml's messages span several lines with a source excerpt; the status line has one:
/// the position, the reason, and the offending line.
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let head = lines.first().copied().unwrap_or("");
    let source = lines.iter().find_map(|l| {
        let (number, rest) = l.split_once(" | ")?;
        number.trim().parse::<u32>().ok().map(|_| rest.trim())
    });
    let reason = lines
        .iter()
        .skip(1)
        .rfind(|l| !l.starts_with('|') && !l.contains(" | "))
        .copied()
        .unwrap_or("");
    let mut out = head.to_string();
    if !reason.is_empty() {
        out.push_str(": ");
        out.push_str(reason);
    }
    if let Some(source) = source {
        out.push_str(&format!(" (in `{source}`)"));
    }
    out
}
