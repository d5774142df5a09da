//! Where the store file is: `--db`, else `$MEMLENS_DB`, else the XDG data directory
//! (`$XDG_DATA_HOME/memlens/memlens.redb`, on Linux `~/.local/share/memlens/memlens.redb`).
//! The demo store lives beside it as `demo.redb` and ignores `$MEMLENS_DB`, so
//! `memlens demo` never points at the store someone set up for real use.

use std::path::PathBuf;

/// The environment variable naming the default store.
pub const DB_ENV: &str = "MEMLENS_DB";
/// File name of the store in the data directory.
pub const STORE_FILE: &str = "memlens.redb";
/// File name of the demo store in the data directory.
pub const DEMO_FILE: &str = "demo.redb";

/// No place for the store could be found.
#[derive(Debug, thiserror::Error)]
#[error("no data directory found (is $HOME set?); pass --db PATH or set ${DB_ENV}")]
pub struct NoDataDir;

/// memlens's directory under the user's data directory.
pub fn data_dir() -> Result<PathBuf, NoDataDir> {
    directories::BaseDirs::new()
        .map(|dirs| dirs.data_dir().join("memlens"))
        .ok_or(NoDataDir)
}

/// The store to use: the `--db` flag, else a non-empty `$MEMLENS_DB`, else the default
/// in the data directory.
pub fn store_path(flag: Option<PathBuf>) -> Result<PathBuf, NoDataDir> {
    store_path_from(flag, std::env::var_os(DB_ENV).map(PathBuf::from))
}

/// [`store_path`] with the environment value given (for tests).
pub fn store_path_from(flag: Option<PathBuf>, env: Option<PathBuf>) -> Result<PathBuf, NoDataDir> {
    if let Some(path) = flag {
        return Ok(path);
    }
    match env.filter(|p| !p.as_os_str().is_empty()) {
        Some(path) => Ok(path),
        None => Ok(data_dir()?.join(STORE_FILE)),
    }
}

/// The demo store: the `--db` flag, else `demo.redb` in the data directory.
pub fn demo_path(flag: Option<PathBuf>) -> Result<PathBuf, NoDataDir> {
    match flag {
        Some(path) => Ok(path),
        None => Ok(data_dir()?.join(DEMO_FILE)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_then_a_non_empty_environment_value() {
        let flag = Some(PathBuf::from("/a.redb"));
        let env = Some(PathBuf::from("/b.redb"));
        assert_eq!(
            store_path_from(flag.clone(), env.clone()).unwrap(),
            PathBuf::from("/a.redb")
        );
        assert_eq!(
            store_path_from(None, env).unwrap(),
            PathBuf::from("/b.redb")
        );
        if let Ok(dir) = data_dir() {
            let fallback = store_path_from(None, Some(PathBuf::new())).unwrap();
            assert_eq!(fallback, dir.join(STORE_FILE));
            assert!(fallback.ends_with("memlens/memlens.redb"));
        }
    }
}
