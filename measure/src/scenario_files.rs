//! [`scenario_files!`](crate::scenario_files): the [`Scenario`](crate::scenario::Scenario) methods every scenario
//! folder answers by forwarding to its own files or with a plain value, written once.

/// Writes, inside an `impl Scenario`, the methods a scenario folder answers from its files: one `method: target`
/// row per method, in any order, each method at most once.
///
/// - `contestants: list`: [`contestants`](crate::scenario::Scenario::contestants) is the `info()` of every item
///   of `list.iter()` (the registry: a `const` array, or a function's `Vec`), in its order;
///   `contestants_on_request: list` likewise for
///   [`contestants_on_request`](crate::scenario::Scenario::contestants_on_request).
/// - `run_trial: path` calls `path(request, sink)` ([`run_trial`](crate::scenario::Scenario::run_trial), from
///   `routine.rs`).
/// - `claim_table: path` calls `path(summary)`; `claim_table: path()` calls `path()`, a table that names no
///   parameter or phase of the run ([`claim_table`](crate::scenario::Scenario::claim_table), from `claims.rs`).
/// - `finding_table: path` calls `path(summary)` ([`finding_table`](crate::scenario::Scenario::finding_table),
///   from `findings.rs`: the sentences the report prints only where their verdicts hold).
/// - `discussion`, `details_discussion` and `headline_notes`: `path` calls `path(summary)` (from `report.rs`).
/// - `advise: path` calls `path(shape, rounds)` ([`advise`](crate::scenario::Scenario::advise), from `advice.rs`:
///   how the scenario answers a user's shape in `lab advise`).
/// - `name`, `title`, `question`, `headline_metric`, `higher_is_better`, `params`, `table_metrics`, `charts`,
///   `questions`, `trade_off_metrics`, `calibration` and `cpu_work`: `value` is what the method returns, an expression that does not name
///   `self` (a method that needs `self` or an argument is written out beside the macro).
///
/// A row may carry attributes, doc comments among them.
///
/// As a scenario's `mod.rs` writes it (costs' memory scenario; this module's tests compile every row):
///
/// ```ignore
/// impl Scenario for MemoryScenario {
///     measure::scenario_files! {
///         contestants: Contestant::ALL,
///         run_trial: routine::run_trial,
///         claim_table: claims::table(),
///         discussion: report::discussion,
///         name: "memory",
///         headline_metric: "bytes_per_unit",
///         table_metrics: vec!["bytes_per_unit", "peak_rss_mib"],
///         // title, question, params, charts, …
///     }
///     // repetitions(quick), which takes an argument
/// }
/// ```
#[macro_export]
macro_rules! scenario_files {
    () => {};
    ($(#[$attr:meta])* contestants: $list:expr $(, $($rest:tt)*)?) => {
        $(#[$attr])*
        fn contestants(&self) -> Vec<$crate::summary::ContestantInfo> {
            $list.iter().map(|c| c.info()).collect()
        }
        $($crate::scenario_files!($($rest)*);)?
    };
    ($(#[$attr:meta])* contestants_on_request: $list:expr $(, $($rest:tt)*)?) => {
        $(#[$attr])*
        fn contestants_on_request(&self) -> Vec<$crate::summary::ContestantInfo> {
            $list.iter().map(|c| c.info()).collect()
        }
        $($crate::scenario_files!($($rest)*);)?
    };
    ($(#[$attr:meta])* run_trial: $run:path $(, $($rest:tt)*)?) => {
        $(#[$attr])*
        fn run_trial(
            &self,
            request: &$crate::record::TrialRequest,
            sink: &mut dyn $crate::scenario::TrialSink,
        ) -> Result<(), $crate::scenario::TrialError> {
            $run(request, sink)
        }
        $($crate::scenario_files!($($rest)*);)?
    };
    ($(#[$attr:meta])* claim_table: $($table:ident)::+ () $(, $($rest:tt)*)?) => {
        $(#[$attr])*
        fn claim_table(&self, _summary: &$crate::summary::Summary) -> Vec<$crate::judge::ClaimSpec> {
            $($table)::+()
        }
        $($crate::scenario_files!($($rest)*);)?
    };
    ($(#[$attr:meta])* finding_table: $table:path $(, $($rest:tt)*)?) => {
        $(#[$attr])*
        fn finding_table(&self, summary: &$crate::summary::Summary) -> Vec<$crate::judge::ClaimSpec> {
            $table(summary)
        }
        $($crate::scenario_files!($($rest)*);)?
    };
    ($(#[$attr:meta])* claim_table: $table:path $(, $($rest:tt)*)?) => {
        $(#[$attr])*
        fn claim_table(&self, summary: &$crate::summary::Summary) -> Vec<$crate::judge::ClaimSpec> {
            $table(summary)
        }
        $($crate::scenario_files!($($rest)*);)?
    };
    ($(#[$attr:meta])* discussion: $report:path $(, $($rest:tt)*)?) => {
        $(#[$attr])*
        fn discussion(&self, summary: &$crate::summary::Summary) -> String {
            $report(summary)
        }
        $($crate::scenario_files!($($rest)*);)?
    };
    ($(#[$attr:meta])* details_discussion: $details:path $(, $($rest:tt)*)?) => {
        $(#[$attr])*
        fn details_discussion(&self, summary: &$crate::summary::Summary) -> String {
            $details(summary)
        }
        $($crate::scenario_files!($($rest)*);)?
    };
    ($(#[$attr:meta])* advise: $advise:path $(, $($rest:tt)*)?) => {
        $(#[$attr])*
        fn advise(&self, shape: &$crate::advice::Shape, rounds: u64) -> Option<$crate::advice::Advice> {
            $advise(shape, rounds)
        }
        $($crate::scenario_files!($($rest)*);)?
    };
    ($(#[$attr:meta])* headline_notes: $notes:path $(, $($rest:tt)*)?) => {
        $(#[$attr])*
        fn headline_notes(&self, summary: &$crate::summary::Summary) -> Vec<String> {
            $notes(summary)
        }
        $($crate::scenario_files!($($rest)*);)?
    };
    // A value row: the method's return type comes from the `@type` rows below.
    ($(#[$attr:meta])* $method:ident: $value:expr $(, $($rest:tt)*)?) => {
        $(#[$attr])*
        fn $method(&self) -> $crate::scenario_files!(@type $method) {
            $value
        }
        $($crate::scenario_files!($($rest)*);)?
    };
    (@type name) => { &'static str };
    (@type title) => { &'static str };
    (@type question) => { &'static str };
    (@type headline_metric) => { &'static str };
    (@type higher_is_better) => { bool };
    (@type params) => { Vec<$crate::scenario::ParamSpec> };
    (@type table_metrics) => { Vec<&'static str> };
    (@type charts) => { Vec<$crate::scenario::ChartSpec> };
    (@type questions) => { Vec<$crate::question::Question> };
    (@type trade_off_metrics) => { Vec<(&'static str, bool)> };
    (@type calibration) => { Option<$crate::scenario::CalibrationSpec> };
    (@type cpu_work) => { Option<$crate::advice::CpuWork> };
}

#[cfg(test)]
mod tests {
    use crate::judge::ClaimSpec;
    use crate::record::TrialRequest;
    use crate::scenario::{CollectingSink, Scenario, TrialError, TrialSink};
    use crate::summary::{ContestantInfo, Summary};

    mod contestants {
        use crate::contestant::Family;
        use crate::summary::ContestantInfo;

        pub(super) struct Named(pub(super) &'static str);

        impl Named {
            pub(super) fn info(&self) -> ContestantInfo {
                ContestantInfo::new(self.0, Family::Blocking, "test")
            }
        }

        pub(super) const ALL: [Named; 2] = [Named("blocking-a"), Named("blocking-b")];

        pub(super) fn on_request() -> Vec<Named> {
            vec![Named("blocking-c")]
        }
    }

    fn run(request: &TrialRequest, _sink: &mut dyn TrialSink) -> Result<(), TrialError> {
        Err(TrialError::UnknownContestant(request.contestant.clone()))
    }

    fn fixed_table() -> Vec<ClaimSpec> {
        Vec::new()
    }

    fn table_of(summary: &Summary) -> Vec<ClaimSpec> {
        summary.phases.iter().map(|_| fixed_table()).next().unwrap_or_default()
    }

    fn words(summary: &Summary) -> String {
        format!("{} contestants", summary.contestants.len())
    }

    fn notes(_summary: &Summary) -> Vec<String> {
        vec!["a note".to_string()]
    }

    fn answer(shape: &crate::advice::Shape, rounds: u64) -> Option<crate::advice::Advice> {
        let why = format!("{} items", shape.items);
        Some(crate::advice::Advice::new(crate::advice::Side::Cpu, why).param("work", vec![rounds]))
    }

    fn no_work(_items: u64, rounds: u32) -> u64 {
        u64::from(rounds)
    }

    /// Every row, the claim table without the summary.
    struct Every;

    /// The four forwarding rows every scenario writes, the claim table of the summary, and the values every
    /// scenario must give.
    struct Fewest;

    impl Scenario for Fewest {
        crate::scenario_files! {
            contestants: contestants::on_request(),
            run_trial: run,
            claim_table: table_of,
            discussion: words,
            name: "fewest",
            title: "Fewest",
            question: "What?",
            params: Vec::new(),
            headline_metric: "ms_per_million",
            table_metrics: Vec::new(),
            charts: Vec::new(),
        }
    }

    impl Scenario for Every {
        crate::scenario_files! {
            contestants: contestants::ALL,
            /// A doc comment on a row is kept.
            contestants_on_request: contestants::on_request(),
            run_trial: run,
            claim_table: fixed_table(),
            discussion: words,
            details_discussion: words,
            headline_notes: notes,
            advise: answer,
            cpu_work: Some(crate::advice::CpuWork { param: "work", round: "round", items: no_work }),
            name: "every",
            title: "Every",
            question: "What?",
            params: Vec::new(),
            headline_metric: "ms_per_million",
            table_metrics: Vec::new(),
            charts: Vec::new(),
        }
    }

    fn names(infos: Vec<ContestantInfo>) -> Vec<String> {
        infos.into_iter().map(|c| c.name).collect()
    }

    #[test]
    fn every_row_forwards_to_its_target() {
        let summary = crate::summary::tests::summary(Vec::new());
        assert_eq!((Every.name(), Every.title(), Fewest.name()), ("every", "Every", "fewest"));
        assert!(Every.params().is_empty() && !Every.higher_is_better());
        assert_eq!(names(Every.contestants()), ["blocking-a", "blocking-b"]);
        assert_eq!(names(Every.contestants_on_request()), ["blocking-c"]);
        assert!(Every.claim_table(&summary).is_empty());
        assert_eq!(Every.discussion(&summary), "0 contestants");
        assert_eq!(Every.details_discussion(&summary), "0 contestants");
        assert_eq!(Every.headline_notes(&summary), ["a note"]);
        assert_eq!(names(Fewest.contestants()), ["blocking-c"]);
        assert!(Fewest.claim_table(&summary).is_empty());
        assert_eq!(Fewest.discussion(&summary), "0 contestants");
        assert!(Fewest.headline_notes(&summary).is_empty());
        let shape = crate::advice::tests::shape();
        let advice = Every.advise(&shape, 7).map(|a| (a.why, a.params));
        assert_eq!(advice, Some(("10000 items".to_string(), [("work".to_string(), vec![7])].into())));
        assert_eq!(Every.cpu_work().map(|w| (w.items)(1, 3)), Some(3));
        assert!(Fewest.advise(&shape, 7).is_none() && Fewest.cpu_work().is_none());
        let request = TrialRequest {
            scenario: "every".to_string(),
            contestant: "nobody".to_string(),
            ..crate::scenario::tests::request(&[])
        };
        let err = Every.run_trial(&request, &mut CollectingSink::default()).err().map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("unknown contestant `nobody`"));
    }
}
