//! What both scenario folders write the same way, written once: the registry's shape (a contestant enum, `ALL` in
//! report order, `name` and `find`: [`registry!`]) and the `Scenario` methods each answers from its own files
//! ([`scenario_files!`]).

/// A contestant enum with a doc line per variant, `ALL` (every contestant, in report order), `name` (its name on
/// the command line) and `find` (the contestant of a name), from one list of `Variant => "name"` rows.
macro_rules! registry {
    ($(#[$doc:meta])* $enum:ident { $($(#[$vdoc:meta])* $variant:ident => $name:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $enum {
            $($(#[$vdoc])* $variant,)*
        }

        /// Every contestant, in report order.
        pub const ALL: [$enum; [$($name),*].len()] = [$($enum::$variant),*];

        impl $enum {
            /// Its name on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $($enum::$variant => $name,)*
                }
            }

            /// The contestant named `name`.
            pub fn find(name: &str) -> Option<$enum> {
                ALL.into_iter().find(|c| c.name() == name)
            }
        }
    };
}

pub(crate) use registry;

/// The `measure::scenario::Scenario` methods a scenario folder answers from its files: `contestants` from the
/// registry, `run_trial` from `routine.rs`, `claim_table` from `claims.rs` and `discussion` from `report.rs`.
macro_rules! scenario_files {
    () => {
        fn contestants(&self) -> Vec<measure::summary::ContestantInfo> {
            contestants::ALL.iter().map(|c| c.info()).collect()
        }

        fn run_trial(
            &self,
            request: &measure::record::TrialRequest,
            sink: &mut dyn measure::scenario::TrialSink,
        ) -> Result<(), measure::scenario::TrialError> {
            routine::run_trial(request, sink)
        }

        fn claim_table(&self, _summary: &measure::summary::Summary) -> Vec<measure::judge::ClaimSpec> {
            claims::table()
        }

        fn discussion(&self, summary: &measure::summary::Summary) -> String {
            report::discussion(summary)
        }
    };
}

pub(crate) use scenario_files;
