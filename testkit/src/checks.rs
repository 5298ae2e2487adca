//! What the conformance tests of every scenario share: finding a check by name, asserting that every check passed
//! or that a check rejected what it was written for, asserting that a registry's names follow their families, and one test per check
//! ([`one_test_each!`](crate::one_test_each)) or per contestant
//! ([`each_contestant_in_own_process!`](crate::each_contestant_in_own_process)).

use measure::summary::{Check, ContestantInfo};

/// The check named `name` among `checks`; panics naming it when there is none.
pub fn named<'a>(checks: &'a [Check], name: &str) -> &'a Check {
    checks.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no {name} check"))
}

/// Asserts that `check` failed, saying each of `says` in its detail.
pub fn assert_rejects(check: &Check, says: &[&str]) {
    assert!(check.failed(), "{}", check.detail);
    for phrase in says {
        assert!(check.detail.contains(phrase), "{phrase:?} not in: {}", check.detail);
    }
}

/// Runs `check` on each of `targets`, each with its name, and asserts that none of the checks failed, listing every
/// failure as `name: check — detail`.
pub fn assert_every_check_passes<T>(targets: impl IntoIterator<Item = (String, T)>, check: impl Fn(&T) -> Vec<Check>) {
    let failures: Vec<String> = targets
        .into_iter()
        .flat_map(|(name, target)| {
            let failed = check(&target).into_iter().filter(Check::failed);
            failed.map(move |c| format!("{name}: {} — {}", c.name, c.detail)).collect::<Vec<_>>()
        })
        .collect();
    assert!(failures.is_empty(), "{} check(s) failed:\n{}", failures.len(), failures.join("\n"));
}

/// Asserts that every name in `infos` is unique, starts with its family's name and has a description.
pub fn assert_names_follow_families(infos: &[ContestantInfo]) {
    for (i, info) in infos.iter().enumerate() {
        assert!(info.name.starts_with(info.family.as_str()), "{} is not in family {:?}", info.name, info.family);
        assert!(!info.description.is_empty(), "{} has no description", info.name);
        assert!(infos[..i].iter().all(|earlier| earlier.name != info.name), "{} twice", info.name);
    }
}

/// One test per contestant of the enum `$registry` (whose `ALL` lists every one), each in a process of its own
/// ([`own_process!`](crate::own_process)), calling `$check` with it; and `every_contestant_is_tested`, which
/// fails when a contestant of `ALL` has no test here.
#[macro_export]
macro_rules! each_contestant_in_own_process {
    ($registry:ident, $check:path; $($test:ident => $contestant:ident,)*) => {
        $crate::own_process! {
            $(
                #[test]
                fn $test() {
                    $check($registry::$contestant);
                }
            )*
        }

        #[test]
        fn every_contestant_is_tested() {
            assert_eq!($registry::ALL.to_vec(), vec![$($registry::$contestant),*]);
        }
    };
}
