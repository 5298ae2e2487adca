//! Tests summary statistics across forks and the Student t critical values through the public API.
#![allow(clippy::unwrap_used)]

use measure::stats::{median, summarize, t_critical_999};

#[test]
fn known_table_values() {
    for (dof, expected) in [(1, 636.62), (2, 31.599), (5, 6.869), (10, 4.587), (14, 4.140), (30, 3.646), (120, 3.373)] {
        let t = t_critical_999(dof);
        assert!((t - expected).abs() < 1e-2, "dof {dof}: {t} vs {expected}");
    }
    assert!(t_critical_999(0).is_infinite());
}

#[test]
fn summary_invariants_hold() {
    let forks = vec![vec![5.0, 3.0, 4.0, 100.0], vec![4.5, 4.2], vec![], vec![3.9, f64::NAN]];
    let s = summarize(&forks).unwrap();
    assert_eq!(s.n, 7);
    assert!(s.min <= s.median && s.median <= s.max);
    assert_eq!((s.min, s.max), (3.0, 100.0));
    assert_eq!(s.median, 4.2);
    assert!(s.ci999 > 0.0);
    assert_eq!(s.fork_medians, vec![4.5, 4.35, 3.9]);
    let mean = (5.0 + 3.0 + 4.0 + 100.0 + 4.5 + 4.2 + 3.9) / 7.0;
    assert!((s.mean - mean).abs() < 1e-12);
}

#[test]
fn ci_shrinks_with_more_processes_of_the_same_spread() {
    let processes = |k: usize| -> Vec<Vec<f64>> { (0..k).map(|i| vec![10.0 + (i % 2) as f64; 5]).collect() };
    let a = summarize(&processes(10)).unwrap();
    let b = summarize(&processes(1000)).unwrap();
    assert!(b.ci999 < a.ci999 / 5.0, "{} vs {}", b.ci999, a.ci999);
}

#[test]
fn more_iterations_in_the_same_processes_do_not_narrow_the_interval() {
    let iterations = |n: usize| -> Vec<Vec<f64>> { (0..3).map(|i| vec![10.0 + i as f64; n]).collect() };
    let few = summarize(&iterations(2)).unwrap();
    let many = summarize(&iterations(1000)).unwrap();
    assert_eq!(few.ci999, many.ci999, "the process, not the iteration, is the unit of evidence");
}

#[test]
fn median_helper() {
    assert_eq!(median(&[2.0, 8.0]), Some(5.0));
    assert_eq!(median(&[]), None);
}
