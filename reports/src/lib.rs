//! Pure renderers of the lab's reports (markdown, SVG charts, summary JSON) and the manager that writes them.
#![warn(missing_docs)]
