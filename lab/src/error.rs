//! The lab's own error for bad usage or unreadable input: it exits with status 2 and writes nothing.

use std::fmt;

/// Bad usage or unreadable input; `main` prints it on one line and exits 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UsageError(String);

impl UsageError {
    /// An error whose message names the flag, file or contestant at fault.
    pub(crate) fn new(message: impl Into<String>) -> Self {
        UsageError(message.into())
    }
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}
