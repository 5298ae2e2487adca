//! What both scenario folders write the same way, written once: the registry's shape (a contestant enum, `ALL` in
//! report order, `name` and `find`: [`registry!`]). The `Scenario` methods each answers from its own files come from
//! `measure::scenario_files!`.

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
