//! Every key's declaration in words: the annotated TOML `rnad-learner
//! config` prints, and the table of `docs/configuration.md` (a test holds
//! the file to [`markdown_table`], so the documentation cannot drift from
//! the declarations).

use std::fmt::Write;

use super::{keys, Config, Resume};

/// The config as a TOML file with every key's meaning, values and whether
/// a resumed run may change it above its value.
pub fn describe(config: &Config) -> String {
    let tree = toml::Value::try_from(config).expect("config serialises");
    let mut out = String::new();
    let mut section = String::new();
    for key in keys() {
        let (table, name) = key.key.rsplit_once('.').unwrap_or(("", &key.key));
        if table != section {
            let _ = write!(out, "\n[{table}]\n");
            section = table.to_string();
        }
        let value = key
            .key
            .split('.')
            .try_fold(&tree, |v, part| v.get(part))
            .expect("every declared key is in the config");
        let _ = write!(
            out,
            "# {}\n# Values: {}; {}.\n{name} = {value}\n",
            key.meaning,
            key.values,
            resume_text(key.resume)
        );
    }
    out
}

/// Every key as a Markdown table: key, meaning, values, on resume.
pub fn markdown_table() -> String {
    let mut out = String::from("| key | meaning | values | on resume |\n|---|---|---|---|\n");
    for key in keys() {
        let cell = |text: &str| text.replace('|', "\\|");
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            key.key,
            cell(&key.meaning),
            cell(key.values),
            match key.resume {
                Resume::Operational => "may change",
                Resume::Experiment => "needs --accept-config-change",
            }
        );
    }
    out
}

fn resume_text(resume: Resume) -> &'static str {
    match resume {
        Resume::Operational => "may change when a run resumes",
        Resume::Experiment => "changing it on resume needs --accept-config-change",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_declared_and_the_description_reads_back() {
        for text in [
            include_str!("../../../../configs/leduc.toml"),
            include_str!("../../../../configs/kuhn-3p.toml"),
        ] {
            let config = Config::from_toml(text, "shipped").unwrap();
            let mut declared: Vec<String> = keys().into_iter().map(|k| k.key).collect();
            declared.sort_unstable();
            let settings = config.settings();
            let actual: Vec<&String> = settings.keys().collect();
            assert_eq!(
                declared.iter().collect::<Vec<_>>(),
                actual,
                "the declarations are exactly the config's keys"
            );
            let described = describe(&config);
            assert_eq!(Config::from_toml(&described, "described").unwrap(), config);
            assert!(described.contains("# Entropy (regularisation) strength"));
            assert!(described.contains(
                "# Values: positive integer; changing it on resume needs --accept-config-change.\nbatch_size = "
            ));
        }
    }

    #[test]
    fn the_documentation_lists_every_key_as_declared() {
        let doc = include_str!("../../../../docs/configuration.md");
        let table = markdown_table();
        assert!(
            doc.contains(&table),
            "docs/configuration.md's key table is not today's; replace it with the output of `rnad-learner config --markdown`:\n{table}"
        );
    }
}
