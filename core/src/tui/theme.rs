//! Colours: the theme's named colours, and how they are drawn on terminals with
//! truecolor, 256 colours, or none at all (NO_COLOR).

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

/// What the terminal can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorMode {
    /// 24-bit colour (`COLORTERM=truecolor` or `24bit`).
    TrueColor,
    /// The xterm 256-colour palette.
    Ansi256,
    /// No colour at all (`NO_COLOR` set): emphasis by bold, reverse and underline only.
    NoColor,
}

impl ColorMode {
    /// Reads `NO_COLOR` and `COLORTERM` from the environment.
    pub fn detect() -> ColorMode {
        ColorMode::from_env(
            std::env::var("NO_COLOR").ok().as_deref(),
            std::env::var("COLORTERM").ok().as_deref(),
        )
    }

    /// The mode for given `NO_COLOR` and `COLORTERM` values.
    pub fn from_env(no_color: Option<&str>, colorterm: Option<&str>) -> ColorMode {
        if no_color.is_some_and(|v| !v.is_empty()) {
            ColorMode::NoColor
        } else if colorterm.is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v == "truecolor" || v == "24bit"
        }) {
            ColorMode::TrueColor
        } else {
            ColorMode::Ansi256
        }
    }
}

/// An RGB colour as written in the config (`"#7aa2f7"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// Parses `#rrggbb`.
    pub fn parse(text: &str) -> Option<Rgb> {
        let hex = text.strip_prefix('#')?;
        if hex.len() != 6 || !hex.is_ascii() {
            return None;
        }
        let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
        Some(Rgb(byte(0)?, byte(2)?, byte(4)?))
    }

    /// The nearest entry of the xterm 256-colour palette (cube or grey ramp).
    pub fn to_ansi256(self) -> u8 {
        let cube = |v: u8| -> u8 {
            if v < 48 {
                0
            } else if v < 115 {
                1
            } else {
                (v - 35) / 40
            }
        };
        let level = |i: u8| if i == 0 { 0 } else { 55 + 40 * i };
        let (r, g, b) = (cube(self.0), cube(self.1), cube(self.2));
        let cube_rgb = (level(r), level(g), level(b));
        let avg = (u16::from(self.0) + u16::from(self.1) + u16::from(self.2)) / 3;
        let grey_i = if avg > 238 {
            23
        } else {
            avg.saturating_sub(3) / 10
        } as u8;
        let grey = 8 + 10 * grey_i;
        let dist = |(a, b, c): (u8, u8, u8)| {
            let d = |x: u8, y: u8| (i32::from(x) - i32::from(y)).pow(2);
            d(a, self.0) + d(b, self.1) + d(c, self.2)
        };
        if dist((grey, grey, grey)) < dist(cube_rgb) {
            232 + grey_i
        } else {
            16 + 36 * r + 6 * g + b
        }
    }
}

/// The `[theme]` table of the config file: every entry optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThemeConfig {
    /// Accent: focused borders, the active tab, bars.
    pub accent: Option<String>,
    /// Background of the selected row.
    pub selection: Option<String>,
    /// Secondary text.
    pub muted: Option<String>,
    /// Errors and warnings.
    pub error: Option<String>,
    /// Histogram bins inside a slider's range.
    pub histogram: Option<String>,
    /// Discovery slots and notices.
    pub highlight: Option<String>,
}

/// The colours in force, already fitted to the terminal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theme {
    mode: ColorMode,
    accent: Rgb,
    selection: Rgb,
    muted: Rgb,
    error: Rgb,
    histogram: Rgb,
    highlight: Rgb,
}

/// A theme colour that is not `#rrggbb`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("[theme] {field} = `{value}`: not a colour (write `#rrggbb`)")]
pub struct ThemeError {
    /// The entry.
    pub field: &'static str,
    /// What was written.
    pub value: String,
}

impl Theme {
    /// The default theme for a colour mode.
    pub fn new(mode: ColorMode) -> Theme {
        Theme {
            mode,
            accent: Rgb(0x7a, 0xa2, 0xf7),
            selection: Rgb(0x2f, 0x3b, 0x5c),
            muted: Rgb(0x8a, 0x90, 0xa0),
            error: Rgb(0xf7, 0x76, 0x8e),
            histogram: Rgb(0x9e, 0xce, 0x6a),
            highlight: Rgb(0xe0, 0xaf, 0x68),
        }
    }

    /// The default theme with the config's colours laid over it.
    pub fn with_config(mode: ColorMode, config: &ThemeConfig) -> Result<Theme, ThemeError> {
        let mut theme = Theme::new(mode);
        let entries: [(&'static str, &Option<String>, &mut Rgb); 6] = [
            ("accent", &config.accent, &mut theme.accent),
            ("selection", &config.selection, &mut theme.selection),
            ("muted", &config.muted, &mut theme.muted),
            ("error", &config.error, &mut theme.error),
            ("histogram", &config.histogram, &mut theme.histogram),
            ("highlight", &config.highlight, &mut theme.highlight),
        ];
        for (field, value, slot) in entries {
            if let Some(text) = value {
                *slot = Rgb::parse(text).ok_or_else(|| ThemeError {
                    field,
                    value: text.clone(),
                })?;
            }
        }
        Ok(theme)
    }

    /// The colour mode the theme draws for.
    pub fn mode(&self) -> ColorMode {
        self.mode
    }

    fn fg(&self, rgb: Rgb) -> Style {
        match self.mode {
            ColorMode::TrueColor => Style::default().fg(Color::Rgb(rgb.0, rgb.1, rgb.2)),
            ColorMode::Ansi256 => Style::default().fg(Color::Indexed(rgb.to_ansi256())),
            ColorMode::NoColor => Style::default(),
        }
    }

    fn bg(&self, rgb: Rgb) -> Style {
        match self.mode {
            ColorMode::TrueColor => Style::default().bg(Color::Rgb(rgb.0, rgb.1, rgb.2)),
            ColorMode::Ansi256 => Style::default().bg(Color::Indexed(rgb.to_ansi256())),
            ColorMode::NoColor => Style::default(),
        }
    }

    /// Accented text: titles, the active tab, focused borders.
    pub fn accent(&self) -> Style {
        self.fg(self.accent).add_modifier(Modifier::BOLD)
    }

    /// A focused pane's border.
    pub fn border_focused(&self) -> Style {
        self.fg(self.accent)
    }

    /// An unfocused pane's border.
    pub fn border(&self) -> Style {
        match self.mode {
            ColorMode::NoColor => Style::default(),
            _ => self.fg(self.muted),
        }
    }

    /// Secondary text.
    pub fn muted(&self) -> Style {
        match self.mode {
            ColorMode::NoColor => Style::default().add_modifier(Modifier::DIM),
            _ => self.fg(self.muted),
        }
    }

    /// The selected row.
    pub fn selected(&self) -> Style {
        match self.mode {
            ColorMode::NoColor => Style::default().add_modifier(Modifier::REVERSED),
            _ => self.bg(self.selection).add_modifier(Modifier::BOLD),
        }
    }

    /// Errors.
    pub fn error(&self) -> Style {
        self.fg(self.error).add_modifier(Modifier::BOLD)
    }

    /// Notices and discovery slots.
    pub fn highlight(&self) -> Style {
        match self.mode {
            ColorMode::NoColor => Style::default().add_modifier(Modifier::UNDERLINED),
            _ => self.fg(self.highlight),
        }
    }

    /// A filled bar segment.
    pub fn bar(&self) -> Style {
        self.fg(self.accent)
    }

    /// Histogram bins inside the range.
    pub fn histogram_in(&self) -> Style {
        self.fg(self.histogram)
    }

    /// Histogram bins outside the range.
    pub fn histogram_out(&self) -> Style {
        self.muted()
    }
}
