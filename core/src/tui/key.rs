//! One key press as the keymap names it: `j`, `G`, `ctrl-t`, `enter`, `space`, read
//! from the config file and from terminal events, and shown in help the same way.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::fmt;

/// One key with its modifiers, normalised (shifted letters carry no SHIFT flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    /// The key.
    pub code: KeyCodeOrd,
    /// Ctrl held.
    pub ctrl: bool,
    /// Alt held.
    pub alt: bool,
}

/// A `KeyCode` that sorts (crossterm's does not implement `Ord`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyCodeOrd {
    /// A character.
    Char(char),
    /// A function key.
    F(u8),
    /// A named key.
    Named(&'static str),
}

const NAMED: [(&str, KeyCode); 16] = [
    ("enter", KeyCode::Enter),
    ("esc", KeyCode::Esc),
    ("tab", KeyCode::Tab),
    ("backtab", KeyCode::BackTab),
    ("backspace", KeyCode::Backspace),
    ("delete", KeyCode::Delete),
    ("up", KeyCode::Up),
    ("down", KeyCode::Down),
    ("left", KeyCode::Left),
    ("right", KeyCode::Right),
    ("home", KeyCode::Home),
    ("end", KeyCode::End),
    ("pgup", KeyCode::PageUp),
    ("pgdn", KeyCode::PageDown),
    ("insert", KeyCode::Insert),
    ("space", KeyCode::Char(' ')),
];

impl Key {
    /// The key a terminal event stands for.
    pub fn from_event(event: &KeyEvent) -> Option<Key> {
        let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
        let alt = event.modifiers.contains(KeyModifiers::ALT);
        let code = match event.code {
            KeyCode::Char(' ') => KeyCodeOrd::Named("space"),
            KeyCode::Char(c) if ctrl => KeyCodeOrd::Char(c.to_ascii_lowercase()),
            KeyCode::Char(c) => KeyCodeOrd::Char(c),
            KeyCode::F(n) => KeyCodeOrd::F(n),
            other => KeyCodeOrd::Named(NAMED.iter().find(|(_, k)| *k == other)?.0),
        };
        Some(Key { code, ctrl, alt })
    }

    /// Parses `j`, `G`, `ctrl-t`, `alt-x`, `enter`, `pgdn`, `f1`, `space`, `?`.
    pub fn parse(text: &str) -> Option<Key> {
        let mut ctrl = false;
        let mut alt = false;
        let mut rest = text;
        loop {
            let lower = rest.to_ascii_lowercase();
            if rest.chars().count() > 1 && lower.starts_with("ctrl-") {
                ctrl = true;
                rest = &rest[5..];
            } else if rest.chars().count() > 1 && lower.starts_with("alt-") {
                alt = true;
                rest = &rest[4..];
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) if ctrl => KeyCodeOrd::Char(c.to_ascii_lowercase()),
            (Some(c), None) => KeyCodeOrd::Char(c),
            _ => {
                let lower = rest.to_ascii_lowercase();
                let lower = match lower.as_str() {
                    "pagedown" => "pgdn".to_string(),
                    "pageup" => "pgup".to_string(),
                    "escape" => "esc".to_string(),
                    "return" => "enter".to_string(),
                    _ => lower,
                };
                if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
                    KeyCodeOrd::F(n)
                } else {
                    KeyCodeOrd::Named(NAMED.iter().find(|(n, _)| *n == lower)?.0)
                }
            }
        };
        Some(Key { code, ctrl, alt })
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("Ctrl-")?;
        }
        if self.alt {
            f.write_str("Alt-")?;
        }
        match self.code {
            KeyCodeOrd::Char(c) => write!(f, "{c}"),
            KeyCodeOrd::F(n) => write!(f, "F{n}"),
            KeyCodeOrd::Named(n) => f.write_str(match n {
                "enter" => "Enter",
                "esc" => "Esc",
                "tab" => "Tab",
                "backtab" => "BackTab",
                "backspace" => "Backspace",
                "delete" => "Delete",
                "up" => "↑",
                "down" => "↓",
                "left" => "←",
                "right" => "→",
                "home" => "Home",
                "end" => "End",
                "pgup" => "PgUp",
                "pgdn" => "PgDn",
                "space" => "Space",
                other => other,
            }),
        }
    }
}
