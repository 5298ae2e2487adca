//! Assertions on a rendered report: which sentences it holds and which it leaves out, each failure naming the
//! sentence and printing the whole text.

/// Asserts `text` holds every one of `wanted`.
#[track_caller]
pub fn holds(text: &str, wanted: &[&str]) {
    for w in wanted {
        assert!(text.contains(w), "missing {w:?}: {text}");
    }
}

/// Asserts `text` holds none of `unwanted`.
#[track_caller]
pub fn lacks(text: &str, unwanted: &[&str]) {
    for u in unwanted {
        assert!(!text.contains(u), "unwanted {u:?}: {text}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_holds_its_sentences_and_lacks_the_others() {
        holds("one two three", &["one", "three"]);
        lacks("one two three", &["four"]);
        assert!(std::panic::catch_unwind(|| holds("one", &["two"])).is_err(), "a missing sentence fails");
        assert!(std::panic::catch_unwind(|| lacks("one", &["one"])).is_err(), "an unwanted sentence fails");
    }
}
