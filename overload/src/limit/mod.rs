//! Admission limits (being built).
