//! Where the repository's data files are found at run time (Pons' test
//! positions, the UCI digits), so that a binary copied out of the
//! repository, or run from another directory, finds them as a user would
//! point at them and not through the source tree it was compiled in:
//! `MINNOW_DATA` names the data directory; without it, `data/` in the
//! working directory or in the nearest directory above it that has the
//! file (the repository's root, from anywhere inside it).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The environment variable naming the data directory.
pub const DATA_ENV: &str = "MINNOW_DATA";

/// A data file found nowhere the search looked.
#[derive(Debug, thiserror::Error)]
#[error("{what} not found: {looked}")]
pub struct DataNotFound {
    /// What the file holds and its path inside the data directory.
    what: String,
    /// Where the search looked, and how to point it elsewhere.
    looked: String,
}

/// The path of `relative` (`connect4-pons`, `digits.csv.gz`) in the data
/// directory; `what` names it in the error.
pub fn data_path(relative: &str, what: &str) -> Result<PathBuf, DataNotFound> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    find(relative, what, std::env::var_os(DATA_ENV), &cwd)
}

fn find(relative: &str, what: &str, env: Option<OsString>, cwd: &Path) -> Result<PathBuf, DataNotFound> {
    let what = format!("{what} (data/{relative})");
    if let Some(dir) = env.filter(|d| !d.is_empty()) {
        let path = PathBuf::from(&dir).join(relative);
        if path.exists() {
            return Ok(path);
        }
        let looked = format!(
            "{DATA_ENV} is {}, and {} does not exist; set {DATA_ENV} to the repository's data directory",
            Path::new(&dir).display(),
            path.display()
        );
        return Err(DataNotFound { what, looked });
    }
    if let Some(path) = cwd.ancestors().map(|dir| dir.join("data").join(relative)).find(|p| p.exists()) {
        return Ok(path);
    }
    let looked = format!(
        "looked for data/{relative} in {} and every directory above it; run from the repository, or set \
         {DATA_ENV} to its data directory",
        cwd.display()
    );
    Err(DataNotFound { what, looked })
}

#[cfg(test)]
mod tests {
    use super::find;
    use std::path::Path;

    #[test]
    fn data_is_found_above_the_working_directory_or_where_minnow_data_says() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().parent().unwrap();
        let digits = repo.join("data/digits.csv.gz");
        let inside = repo.join("crates/tasks/src");
        assert_eq!(find("digits.csv.gz", "digits", None, &inside).unwrap(), digits);
        assert_eq!(find("digits.csv.gz", "digits", Some("".into()), repo).unwrap(), digits);
        let outside = std::env::temp_dir();
        let env = Some(repo.join("data").into_os_string());
        assert_eq!(find("digits.csv.gz", "digits", env, &outside).unwrap(), digits);

        let e = find("connect4-pons", "Pons' test positions", None, Path::new("/")).unwrap_err().to_string();
        assert_eq!(
            e,
            "Pons' test positions (data/connect4-pons) not found: looked for data/connect4-pons in / and every \
             directory above it; run from the repository, or set MINNOW_DATA to its data directory"
        );
        let e = find("connect4-pons", "Pons' test positions", Some("/nowhere".into()), repo).unwrap_err();
        assert!(e.to_string().contains("MINNOW_DATA is /nowhere, and /nowhere/connect4-pons does not exist"), "{e}");
    }
}
