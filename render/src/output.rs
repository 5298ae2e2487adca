//! The one place that writes report files: atomic writes of rendered reports, the raw file's appender, and the
//! output folder's lock.
//!
//! A run first takes the folder's advisory lock ([`OutputDir::lock`]), so that a second run into the same folder
//! is refused instead of mixing its files with the first's; then it creates a raw file no other run writes
//! ([`OutputDir::create_raw`]).

use std::fs::{self, File, OpenOptions, TryLockError};
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
    /// Another run holds the output folder's lock.
    #[error(
        "{} is in use by another lab run{}: wait for it to end, or choose another --out",
        dir.display(),
        holder.as_deref().map(|pid| format!(" (pid {pid})")).unwrap_or_default()
    )]
    Locked {
        /// The output folder.
        dir: PathBuf,
        /// The process id the holder wrote into the lock file, if it could be read.
        holder: Option<String>,
    },
    /// The output folder's lock file could not be opened or locked.
    #[error("cannot lock {}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
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

/// The lock file every run takes inside its output folder.
pub const LOCK_FILE: &str = ".lab.lock";

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

    /// Write every file of `rendered`, all or nothing. Each new file is first written and synced in a staging
    /// folder inside the output folder (`.staging-<pid>-<n>/`), then renamed over its destination one by one,
    /// keeping a link to the file it replaces. If any step fails, every destination already replaced gets its
    /// previous file back (or is removed, if it had none): the folder ends with every new file or with the old
    /// ones, never a mix of two runs, and a reader never sees half a file. Creates folders (`img/`) as needed.
    pub fn write(&self, rendered: &Rendered) -> Result<(), OutputError> {
        let mut targets = Vec::with_capacity(rendered.files.len());
        for file in &rendered.files {
            targets.push((self.resolve(&file.path)?, file.contents.as_bytes()));
        }
        // Folders first: creating one replaces nothing.
        create_dir_all(&self.root)?;
        for (path, _) in &targets {
            create_parent(path)?;
        }
        let staging =
            self.root.join(format!(".staging-{}-{}", std::process::id(), TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)));
        fs::create_dir(&staging).map_err(|source| OutputError::CreateDir { path: staging.clone(), source })?;
        let result = stage(&staging, &targets).and_then(|()| commit(&staging, &targets));
        let _ = fs::remove_dir_all(&staging);
        result
    }

    /// Take the folder's advisory lock (creating the folder and its [`LOCK_FILE`] as needed), held until the
    /// returned [`OutputLock`] is dropped or the process ends, however it ends. A folder another process holds
    /// is refused at once with [`OutputError::Locked`], naming that process.
    pub fn lock(&self) -> Result<OutputLock, OutputError> {
        create_dir_all(&self.root)?;
        let path = self.root.join(LOCK_FILE);
        let lock_error = |source| OutputError::Lock { path: path.clone(), source };
        // Opened without truncation: the holder's process id stays readable until this process holds the lock.
        let mut file =
            OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(lock_error)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let holder = fs::read_to_string(&path).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
                return Err(OutputError::Locked { dir: self.root.clone(), holder });
            }
            Err(TryLockError::Error(source)) => return Err(lock_error(source)),
        }
        file.set_len(0)
            .and_then(|()| file.write_all(format!("{}\n", std::process::id()).as_bytes()))
            .map_err(lock_error)?;
        Ok(OutputLock { path, _file: file })
    }

    /// Create the raw file of a run of `scenario` started at `stamp` (such as `20261130T100000Z`):
    /// `raw/<scenario>-<stamp>-<pid>.jsonl`, with `-2`, `-3`, ... after it should that name exist. The file is
    /// always new, so two runs never append to one file.
    pub fn create_raw(&self, scenario: &str, stamp: &str) -> Result<RawAppender, OutputError> {
        let base = format!("raw/{scenario}-{stamp}-{}", std::process::id());
        let mut n = 1;
        loop {
            let rel = if n == 1 { format!("{base}.jsonl") } else { format!("{base}-{n}.jsonl") };
            let path = self.resolve(&rel)?;
            create_parent(&path)?;
            match OpenOptions::new().create_new(true).append(true).open(&path) {
                Ok(file) => return Ok(RawAppender { path, rel, file, len: 0 }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
                Err(source) => return Err(OutputError::Append { path, source }),
            }
        }
    }

    /// An appender for the raw file at `rel_path` (such as `raw/chain-20261130T100000Z.jsonl`), creating its
    /// folder and the file as needed and appending to what is already there.
    pub fn raw_appender(&self, rel_path: &str) -> Result<RawAppender, OutputError> {
        let path = self.resolve(rel_path)?;
        create_parent(&path)?;
        let append_error = |source| OutputError::Append { path: path.clone(), source };
        let file = OpenOptions::new().create(true).append(true).open(&path).map_err(append_error)?;
        let len = file.metadata().map_err(append_error)?.len();
        Ok(RawAppender { path, rel: rel_path.to_string(), file, len })
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

/// The output folder's advisory lock (see [`OutputDir::lock`]); released when dropped.
#[derive(Debug)]
pub struct OutputLock {
    path: PathBuf,
    _file: File,
}

impl OutputLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Appends one line per call to a raw `.jsonl` file, flushed and synced each time so that an interrupted run
/// keeps every line it finished.
#[derive(Debug)]
pub struct RawAppender {
    path: PathBuf,
    rel: String,
    file: File,
    /// Bytes of whole lines in the file.
    len: u64,
}

impl RawAppender {
    /// The raw file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The raw file's path relative to the output folder, such as `raw/chain-20261130T100000Z-4242.jsonl`.
    pub fn rel_path(&self) -> &str {
        &self.rel
    }

    /// Append `line` and a newline (a trailing newline in `line` is not doubled), then flush and sync the data
    /// to disk. When that fails (a full disk), whatever part of the line reached the file is cut off again, so
    /// the file still ends with its last whole line.
    pub fn append_line(&mut self, line: &str) -> Result<(), OutputError> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.strip_suffix('\n').unwrap_or(line).as_bytes());
        bytes.push(b'\n');
        let written = self.file.write_all(&bytes).and_then(|()| self.file.flush()).and_then(|()| self.file.sync_data());
        match written {
            Ok(()) => {
                self.len += bytes.len() as u64;
                Ok(())
            }
            Err(source) => {
                // Best effort: if even this fails, readers skip a torn last line anyway.
                let _ = self.file.set_len(self.len);
                Err(OutputError::Append { path: self.path.clone(), source })
            }
        }
    }
}

/// Create the folder at `path` and every folder above it that is missing.
fn create_dir_all(path: &Path) -> Result<(), OutputError> {
    fs::create_dir_all(path).map_err(|source| OutputError::CreateDir { path: path.to_path_buf(), source })
}

/// Create the folder `path` is in, as [`create_dir_all`] does.
fn create_parent(path: &Path) -> Result<(), OutputError> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => create_dir_all(parent),
        _ => Ok(()),
    }
}

/// Write and sync each new file as `staging/new-<i>`.
fn stage(staging: &Path, targets: &[(PathBuf, &[u8])]) -> Result<(), OutputError> {
    for (i, (path, contents)) in targets.iter().enumerate() {
        let written = File::create(staging.join(format!("new-{i}"))).and_then(|mut f| {
            f.write_all(contents)?;
            f.sync_all()
        });
        written.map_err(|source| OutputError::Write { path: path.clone(), source })?;
    }
    Ok(())
}

/// Rename each staged file over its destination, keeping the file it replaces as `staging/old-<i>`; on the first
/// failure, put back every file replaced so far.
fn commit(staging: &Path, targets: &[(PathBuf, &[u8])]) -> Result<(), OutputError> {
    // (destination, its previous file if it had one) of every destination replaced so far.
    let mut replaced: Vec<(&Path, Option<PathBuf>)> = Vec::with_capacity(targets.len());
    for (i, (path, _)) in targets.iter().enumerate() {
        let old = staging.join(format!("old-{i}"));
        let previous = match fs::hard_link(path, &old) {
            Ok(()) => Some(old),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            // A file system without hard links: keep a copy instead.
            Err(_) => match fs::copy(path, &old) {
                Ok(_) => Some(old),
                Err(source) => {
                    roll_back(&replaced);
                    return Err(OutputError::Write { path: path.clone(), source });
                }
            },
        };
        let new = staging.join(format!("new-{i}"));
        if let Err(source) = fs::rename(&new, path) {
            roll_back(&replaced);
            return Err(OutputError::Rename { from: new, to: path.clone(), source });
        }
        replaced.push((path, previous));
    }
    Ok(())
}

/// Undo [`commit`]'s renames, last first (best effort: renames within one folder need no space).
fn roll_back(replaced: &[(&Path, Option<PathBuf>)]) {
    for (path, previous) in replaced.iter().rev() {
        let _ = match previous {
            Some(old) => fs::rename(old, path),
            None => fs::remove_file(path),
        };
    }
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
