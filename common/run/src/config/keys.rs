//! How a config key is declared: once, beside its field, with its meaning,
//! the values it takes, the check of its value and whether a resumed run
//! may change it ([`config_section!`]). Validation, `rnad-learner config`,
//! the resume check and `docs/configuration.md` are all derived from these
//! declarations.

use super::ConfigError;

/// Whether a restart of a run may change a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// It says how the run is operated, not what it computes (where it
    /// lives, how often it is evaluated and checkpointed, how many actors
    /// with how many games feed it): a restart may change it freely.
    Operational,
    /// It changes what the run computes: a restart that changes it must be
    /// accepted explicitly (`--accept-config-change`), and is recorded.
    Experiment,
}

/// One key's declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyInfo {
    /// The dotted key (`rnad.learning_rate`).
    pub key: String,
    /// What it means.
    pub meaning: String,
    /// The values it takes, in words.
    pub values: &'static str,
    /// Whether a resumed run may change it.
    pub resume: Resume,
}

/// The dotted key of `name` in the section at `prefix` (`""` at the top).
pub fn dotted(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// A doc comment's lines as one sentence.
pub fn join_doc(lines: &[&str]) -> String {
    lines
        .iter()
        .map(|line| line.trim())
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The check of one key's value failed: the key, with the message.
pub fn invalid(key: String, why: super::checks::OutOfRange) -> ConfigError {
    ConfigError::Invalid {
        key,
        message: why.0,
    }
}

/// Declares a config section: its struct, whose fields are its keys and
/// its subsections, each key's meaning (its doc comment), the values it
/// takes, the check of its value (a function `fn(&T) -> Result<(), OutOfRange>`
/// from [`super::checks`]) and whether a resume may change it.
/// `Section::keys` and `Section::check_values` come with it.
macro_rules! config_section {
    (
        $(#[doc = $section_doc:literal])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])+
                $key:ident: $ty:ty => values: $values:literal, check: $check:path, resume: $resume:ident;
            )*
            $(
                sections {
                    $(
                        $(#[doc = $sub_doc:literal])+
                        $section:ident: $section_ty:ty;
                    )*
                }
            )?
        }
    ) => {
        $(#[doc = $section_doc])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $(
                $(#[doc = $doc])+
                pub $key: $ty,
            )*
            $($(
                $(#[doc = $sub_doc])+
                pub $section: $section_ty,
            )*)?
        }

        impl $name {
            /// Every key of this section and its subsections, under
            /// `prefix`, in declaration order.
            pub fn keys(prefix: &str) -> Vec<$crate::config::keys::KeyInfo> {
                #[allow(unused_mut)]
                let mut keys = vec![$(
                    $crate::config::keys::KeyInfo {
                        key: $crate::config::keys::dotted(prefix, stringify!($key)),
                        meaning: $crate::config::keys::join_doc(&[$($doc),+]),
                        values: $values,
                        resume: $crate::config::keys::Resume::$resume,
                    },
                )*];
                $($(
                    keys.extend(<$section_ty>::keys(
                        &$crate::config::keys::dotted(prefix, stringify!($section)),
                    ));
                )*)?
                keys
            }

            /// Checks every key's value on its own (relations between keys
            /// are checked by [`Config::validate`](crate::config::Config::validate)).
            pub fn check_values(&self, prefix: &str) -> Result<(), $crate::config::ConfigError> {
                $(
                    $check(&self.$key).map_err(|why| {
                        $crate::config::keys::invalid(
                            $crate::config::keys::dotted(prefix, stringify!($key)),
                            why,
                        )
                    })?;
                )*
                $($(
                    self.$section.check_values(&$crate::config::keys::dotted(
                        prefix,
                        stringify!($section),
                    ))?;
                )*)?
                Ok(())
            }
        }
    };
}

pub(crate) use config_section;
