//! [`registry!`](crate::registry): a scenario's contestant registry, written once: the enum, every contestant in
//! report order, and each one's name on the command line.

/// A contestant enum with a doc line per variant, `ALL` (every contestant, in report order), `name` (its name on
/// the command line) and `find` (the contestant of a name), from one list of `Variant => "name"` rows; the enum's
/// own `impl` adds what else a contestant is (its `info`, how to prepare it).
///
/// ```
/// measure::registry! {
///     /// A contestant.
///     Contestant {
///         /// The plain loop.
///         Loop => "baseline-loop",
///         /// One thread per stage.
///         Threads => "blocking-threads",
///     }
/// }
/// assert_eq!(Contestant::ALL.map(Contestant::name), ["baseline-loop", "blocking-threads"]);
/// assert_eq!(Contestant::find("blocking-threads"), Some(Contestant::Threads));
/// ```
#[macro_export]
macro_rules! registry {
    ($(#[$doc:meta])* $enum:ident { $($(#[$vdoc:meta])* $variant:ident => $name:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $enum {
            $($(#[$vdoc])* $variant,)*
        }

        impl $enum {
            /// Every contestant, in report order.
            pub const ALL: [$enum; [$($name),*].len()] = [$($enum::$variant),*];

            /// Its name on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $($enum::$variant => $name,)*
                }
            }

            /// The contestant named `name`.
            pub fn find(name: &str) -> Option<$enum> {
                $enum::ALL.into_iter().find(|c| c.name() == name)
            }
        }
    };
}
