//! The one place that writes report files: atomic writes of rendered reports, and the raw file's appender.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::Rendered;

/// Why writing a report or raw record failed; every variant names the path involved.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// A rendered path was absolute or climbed out of the output folder.
    #[error("refusing to write `{path}`: paths must be relative and stay inside the output folder")]
    BadPath {
        /// The offending path, as rendered.
        path: String,
    },
    /// A folder could not be created.
    #[error("cannot create folder {}", path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: io::Error,
    },
    /// A file could not be written (or its temporary file could not be created).
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: io::Error,
    },
    /// A finished temporary file could not be renamed over its destination.
    #[error("cannot rename {} to {}", from.display(), to.display())]
    Rename {
        /// The temporary file.
        from: PathBuf,
        /// The destination.
        to: PathBuf,
        /// What the OS said.
        #[source]
        source: io::Error,
    },
    /// A raw file could not be opened or appended to.
    #[error("cannot append to {}", path.display())]
    Append {
        /// The raw file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: io::Error,
    },
}

/// The output folder (`--out DIR`) and the only writer of files inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputDir {
    root: PathBuf,
}

/// Distinguishes temporary files of concurrent writes within one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl OutputDir {
    /// The output folder at `root`; nothing is created until something is written.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        OutputDir { root: root.into() }
    }

    /// The output folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Write every file of `rendered`, each atomically: written to a temporary file in the same folder, synced,
    /// then renamed over the destination, so a reader never sees half a file. Creates folders (`img/`) as
    /// needed. Stops at the first error; files written before it stay.
    pub fn write(&self, rendered: &Rendered) -> Result<(), OutputError> {
        for file in &rendered.files {
            let path = self.resolve(&file.path)?;
            write_atomically(&path, file.contents.as_bytes())?;
        }
        Ok(())
    }

    /// An appender for the raw file at `rel_path` (such as `raw/chain-20261130T100000Z.jsonl`), creating its
    /// folder and the file as needed and appending to what is already there.
    pub fn raw_appender(&self, rel_path: &str) -> Result<RawAppender, OutputError> {
        let path = self.resolve(rel_path)?;
        create_parent(&path)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|source| OutputError::Append { path: path.clone(), source })?;
        Ok(RawAppender { path, file })
    }

    /// `root/rel`, refusing absolute paths and `..`.
    fn resolve(&self, rel: &str) -> Result<PathBuf, OutputError> {
        let rel_path = Path::new(rel);
        let normal = rel_path.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if rel.is_empty() || !normal {
            return Err(OutputError::BadPath { path: rel.to_string() });
        }
        Ok(self.root.join(rel_path))
    }
}

/// Appends one line per call to a raw `.jsonl` file, flushed and synced each time so that an interrupted run
/// keeps every line it finished.
#[derive(Debug)]
pub struct RawAppender {
    path: PathBuf,
    file: File,
}

impl RawAppender {
    /// The raw file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append `line` and a newline (a trailing newline in `line` is not doubled), then flush and sync the data
    /// to disk.
    pub fn append_line(&mut self, line: &str) -> Result<(), OutputError> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.strip_suffix('\n').unwrap_or(line).as_bytes());
        bytes.push(b'\n');
        self.file
            .write_all(&bytes)
            .and_then(|()| self.file.flush())
            .and_then(|()| self.file.sync_data())
            .map_err(|source| OutputError::Append { path: self.path.clone(), source })
    }
}

fn create_parent(path: &Path) -> Result<(), OutputError> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => {
            fs::create_dir_all(parent).map_err(|source| OutputError::CreateDir { path: parent.to_path_buf(), source })
        }
        _ => Ok(()),
    }
}

/// Write `contents` to a temporary sibling of `path`, sync it, and rename it over `path`.
fn write_atomically(path: &Path, contents: &[u8]) -> Result<(), OutputError> {
    create_parent(path)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = path.with_file_name(format!(
        ".{name}.{}-{}.tmp",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = File::create(&temp).and_then(|mut f| {
        f.write_all(contents)?;
        f.sync_all()
    });
    if let Err(source) = written {
        let _ = fs::remove_file(&temp);
        return Err(OutputError::Write { path: path.to_path_buf(), source });
    }
    if let Err(source) = fs::rename(&temp, path) {
        let _ = fs::remove_file(&temp);
        return Err(OutputError::Rename { from: temp, to: path.to_path_buf(), source });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_folder_are_refused() {
        let out = OutputDir::new("/tmp/nowhere");
        for bad in ["", "/etc/passwd", "../x.md", "img/../../x.md"] {
            assert!(matches!(out.resolve(bad), Err(OutputError::BadPath { .. })), "{bad}");
        }
        assert_eq!(out.resolve("img/a.svg").ok(), Some(PathBuf::from("/tmp/nowhere/img/a.svg")));
    }

    #[test]
    fn errors_name_the_path() {
        let error = OutputError::BadPath { path: "../x".to_string() };
        assert!(error.to_string().contains("`../x`"));
    }
}
