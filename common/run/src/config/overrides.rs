//! Settings given on the command line: `--set KEY=VALUE` (one key of the
//! config, dotted as in the TOML file) and `sweep --grid KEY=V1,V2,...`
//! (one key, several values). Both are applied to the config's TOML tree
//! and the result is parsed and validated exactly like a file, so an
//! unknown key, a value of the wrong type or one out of range is refused
//! naming the key.

use std::str::FromStr;

use super::{Config, ConfigError};

/// One `KEY=VALUE`.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    /// The dotted key (`rnad.learning_rate`).
    pub key: String,
    /// The value: TOML (`3e-4`, `[128, 128]`, `true`), or a bare string
    /// (`ema`, `leduc_poker(players=3)`) when it is not valid TOML.
    pub value: toml::Value,
    /// The value as written: what a string key takes when the text also
    /// reads as another TOML type (`run_dir=1_000` stays `1_000`).
    pub raw: String,
}

/// A `--set` or `--grid` argument that is not `KEY=VALUE`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MalformedSetting(pub String);

impl FromStr for Override {
    type Err = MalformedSetting;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (key, value) = text.split_once('=').ok_or_else(|| {
            MalformedSetting(format!(
                "{text:?}: expected KEY=VALUE, e.g. rnad.learning_rate=3e-4"
            ))
        })?;
        let key = key.trim();
        if key.is_empty() {
            return Err(MalformedSetting(format!(
                "{text:?}: the key before `=` is empty"
            )));
        }
        Ok(Override {
            key: key.to_string(),
            value: parse_value(value.trim()),
            raw: value.trim().to_string(),
        })
    }
}

impl std::fmt::Display for Override {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.key, display_value(&self.value))
    }
}

/// One `KEY=V1,V2,...` of a sweep: the key takes each value in turn.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// The dotted key.
    pub key: String,
    /// Its values as written, in the order given.
    pub values: Vec<String>,
}

impl Grid {
    /// The overrides the grid stands for, one per value.
    pub fn overrides(&self) -> Vec<Override> {
        self.values
            .iter()
            .map(|raw| Override {
                key: self.key.clone(),
                value: parse_value(raw),
                raw: raw.clone(),
            })
            .collect()
    }
}

impl FromStr for Grid {
    type Err = MalformedSetting;

    /// `KEY=V1,V2`; commas inside brackets or parentheses belong to one
    /// value (`network.hidden=[64,64],[128,128]`,
    /// `game=leduc_poker(players=3,ranks=7),kuhn_poker`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (key, values) = text.split_once('=').ok_or_else(|| {
            MalformedSetting(format!(
                "{text:?}: expected KEY=V1,V2,..., e.g. rnad.eta=0.2,0.05"
            ))
        })?;
        let key = key.trim();
        if key.is_empty() {
            return Err(MalformedSetting(format!(
                "{text:?}: the key before `=` is empty"
            )));
        }
        let values: Vec<String> = split_top_level(values)
            .into_iter()
            .map(|v| v.trim().to_string())
            .collect();
        if values.iter().any(String::is_empty) {
            return Err(MalformedSetting(format!("{text:?}: a value is empty")));
        }
        Ok(Grid {
            key: key.to_string(),
            values,
        })
    }
}

/// A value as a command line writes it: strings bare, the rest as TOML.
pub fn display_value(value: &toml::Value) -> String {
    match value {
        toml::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn parse_value(text: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("value = {text}"))
        .ok()
        .and_then(|mut table| table.remove("value"))
        .unwrap_or_else(|| toml::Value::String(text.to_string()))
}

/// Splits at the commas outside brackets and parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

impl Config {
    /// This config with `overrides` applied in order, parsed and validated
    /// as a file would be.
    pub fn with_overrides(&self, overrides: &[Override]) -> Result<Config, ConfigError> {
        if overrides.is_empty() {
            return Ok(self.clone());
        }
        let mut tree = toml::Value::try_from(self).expect("config serialises");
        for o in overrides {
            set(&mut tree, o)?;
        }
        let given: Vec<String> = overrides.iter().map(Override::to_string).collect();
        let text = toml::to_string(&tree).expect("a TOML tree serialises");
        Config::from_toml(&text, &format!("with --set {}", given.join(" --set ")))
    }
}

/// Sets one key of the tree, refusing keys the config does not have and
/// values of another type than the key's.
fn set(tree: &mut toml::Value, o: &Override) -> Result<(), ConfigError> {
    let invalid = |message: String| ConfigError::Override {
        key: o.key.clone(),
        message,
    };
    let mut node = tree;
    let mut path = String::new();
    for part in o.key.split('.') {
        let table = node
            .as_table_mut()
            .ok_or_else(|| invalid(format!("`{path}` is a value, not a section")))?;
        if !table.contains_key(part) {
            let mut known: Vec<&String> = table.keys().collect();
            known.sort();
            let known: Vec<String> = known
                .into_iter()
                .map(|k| {
                    if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    }
                })
                .collect();
            return Err(invalid(format!(
                "no such key; the keys {} are {}",
                if path.is_empty() {
                    "at the top".to_string()
                } else {
                    format!("of [{path}]")
                },
                known.join(", ")
            )));
        }
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(part);
        node = table.get_mut(part).expect("checked");
    }
    if node.is_table() {
        return Err(invalid("is a section; set one of its keys".into()));
    }
    let value = match (&*node, &o.value) {
        // `--set rnad.eta=1` means 1.0 for a float key.
        (toml::Value::Float(_), toml::Value::Integer(i)) => toml::Value::Float(*i as f64),
        // A string key takes any text as written (`run_dir=runs/2024`,
        // `run_dir=1_000`); a quoted TOML string loses its quotes.
        (toml::Value::String(_), toml::Value::String(text)) => toml::Value::String(text.clone()),
        (toml::Value::String(_), _) => toml::Value::String(o.raw.clone()),
        (_, other) => other.clone(),
    };
    if std::mem::discriminant(node) != std::mem::discriminant(&value) {
        return Err(invalid(format!(
            "takes {}, got {} ({})",
            type_name(node),
            type_name(&value),
            display_value(&o.value)
        )));
    }
    *node = value;
    Ok(())
}

fn type_name(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a number",
        toml::Value::Boolean(_) => "true or false",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "a list",
        toml::Value::Table(_) => "a section",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kuhn() -> Config {
        Config::from_toml(include_str!("../../../../configs/kuhn.toml"), "kuhn").unwrap()
    }

    fn apply(texts: &[&str]) -> Result<Config, String> {
        let overrides: Vec<Override> = texts.iter().map(|t| t.parse().unwrap()).collect();
        kuhn().with_overrides(&overrides).map_err(|e| e.to_string())
    }

    #[test]
    fn overrides_set_values_of_every_type() {
        let config = apply(&[
            "rnad.learning_rate=1e-3",
            "rnad.eta=1",
            "rnad.averaging=am",
            "network.hidden=[32, 16]",
            "actors.lockstep=true",
            "actors.count=1",
            "game=kuhn_poker(players=3)",
            "run_dir=runs/x",
            "seed=7",
        ])
        .unwrap();
        assert_eq!(
            apply(&["run_dir=1_000"]).unwrap().run_dir,
            std::path::PathBuf::from("1_000")
        );
        assert_eq!(
            apply(&["run_dir=\"a b\""]).unwrap().run_dir,
            std::path::PathBuf::from("a b")
        );
        assert_eq!(config.rnad.learning_rate, 1e-3);
        assert_eq!(config.rnad.eta, 1.0);
        assert_eq!(config.rnad.averaging, crate::config::Averaging::Am);
        assert_eq!(config.network.hidden, [32, 16]);
        assert!(config.actors.lockstep);
        assert_eq!(config.game.to_string(), "kuhn_poker(players=3)");
        assert_eq!(config.run_dir, std::path::PathBuf::from("runs/x"));
        assert_eq!(config.seed, 7);
    }

    #[test]
    fn bad_overrides_are_refused_naming_the_key() {
        for (given, expected) in [
            (
                "rnad.etta=0.1",
                "`rnad.etta`: no such key; the keys of [rnad] are",
            ),
            (
                "rnadd.eta=0.1",
                "`rnadd.eta`: no such key; the keys at the top are",
            ),
            ("rnad=0.1", "`rnad`: is a section"),
            (
                "rnad.batch_size=many",
                "`rnad.batch_size`: takes an integer, got a string (many)",
            ),
            (
                "rnad.batch_size=1.5",
                "`rnad.batch_size`: takes an integer, got a number",
            ),
            (
                "actors.lockstep=yes",
                "`actors.lockstep`: takes true or false",
            ),
            (
                "rnad.learning_rate=-1",
                "`rnad.learning_rate`: must be positive, got -1",
            ),
            ("rnad.averaging=median", "median"),
            ("game=chess", "chess"),
        ] {
            let err = apply(&[given]).unwrap_err();
            assert!(err.contains(expected), "{given}: {err}");
        }
        assert!("rnad.eta"
            .parse::<Override>()
            .unwrap_err()
            .to_string()
            .contains("KEY=VALUE"));
    }

    #[test]
    fn grids_split_at_top_level_commas() {
        let grid: Grid = "network.hidden=[64,64],[128, 128]".parse().unwrap();
        assert_eq!(grid.values, ["[64,64]", "[128, 128]"]);
        assert_eq!(grid.overrides()[1].value.as_array().unwrap().len(), 2);
        let grid: Grid = "game=leduc_poker(players=3,ranks=7),kuhn_poker"
            .parse()
            .unwrap();
        assert_eq!(
            grid.values,
            ["leduc_poker(players=3,ranks=7)", "kuhn_poker"]
        );
        assert!("rnad.eta=0.1,"
            .parse::<Grid>()
            .unwrap_err()
            .to_string()
            .contains("empty"));
    }
}
