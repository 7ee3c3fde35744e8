//! Reading `cbindgen.toml`: shared cbindgen settings, one entry per header,
//! and what each release identity's header set spells its own way.

use std::path::{Path, PathBuf};

use cbindgen::Config;
use toml::{Table, Value};

/// How Rust's unsigned fixed-width integers are spelled in a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integers {
    /// `enet_uint8`, `enet_uint16`, `enet_uint32`: what every ENet prototype uses.
    Enet,
    /// `unsigned char`, `unsigned short`, `unsigned int`: what `types.h`
    /// defines the `enet_uint*` names as.
    C,
}

/// One header of `include/enet/` and how to generate it.
pub struct HeaderSpec {
    /// File name inside `include/enet/`.
    pub file: String,
    /// Rust files cbindgen parses, relative to the repository root.
    pub sources: Vec<PathBuf>,
    pub integers: Integers,
    /// Whether prototypes keep their documentation (up to its `# Safety`
    /// section) and argument names: stock's headers have neither, the
    /// extension header has both.
    pub function_docs: bool,
    /// Types the header declares without a definition: handles a program
    /// only holds pointers to (any other type that comes out opaque is an
    /// error).
    pub opaque: Vec<String>,
    /// `[defaults]` with the header's own `[header.cbindgen]` merged over it.
    pub config: Config,
}

/// A struct field a release identity's headers name (and possibly type)
/// differently from the Rust source, at the same offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRename {
    /// The struct, by its C name (`ENetPeer`).
    pub owner: String,
    /// The field's name in the Rust source.
    pub field: String,
    /// Its name in this identity's headers.
    pub name: String,
    /// Its C type there, when that differs (a type name, `enet_uint32`).
    pub ty: Option<String>,
}

/// The whole configuration.
pub struct Spec {
    pub headers: Vec<HeaderSpec>,
    /// Per release (`"1.3.18"`), the fields its header set renames
    /// (`[identity."RELEASE".fields]`).
    pub renames: Vec<(String, Vec<FieldRename>)>,
}

impl Spec {
    /// The renames of `release` (none if it has no table).
    pub fn renames_of(&self, release: &str) -> &[FieldRename] {
        self.renames
            .iter()
            .find(|(name, _)| name == release)
            .map_or(&[], |(_, renames)| renames.as_slice())
    }
}

/// Reads the generator's configuration from `path`.
pub fn load(path: &Path) -> Result<Spec, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    parse(&text).map_err(|error| format!("{}: {error}", path.display()))
}

fn parse(text: &str) -> Result<Spec, String> {
    let mut document: Table = text.parse().map_err(|error| format!("{error}"))?;
    let renames = match document.remove("identity") {
        Some(Value::Table(identities)) => identities
            .into_iter()
            .map(|(release, table)| {
                let renames = identity_renames(table)
                    .map_err(|error| format!("identity {release}: {error}"))?;
                Ok((release, renames))
            })
            .collect::<Result<Vec<_>, String>>()?,
        Some(_) => return Err("`identity` must be a table".into()),
        None => Vec::new(),
    };
    let defaults = match document.remove("defaults") {
        Some(Value::Table(defaults)) => defaults,
        Some(_) => return Err("`defaults` must be a table".into()),
        None => Table::new(),
    };
    let headers = match document.remove("header") {
        Some(Value::Array(headers)) => headers,
        _ => return Err("expected at least one [[header]]".into()),
    };
    if let Some(key) = document.keys().next() {
        return Err(format!("unknown top-level key `{key}`"));
    }
    let headers = headers
        .into_iter()
        .map(|header| match header {
            Value::Table(header) => header_spec(&defaults, header),
            _ => Err("each [[header]] must be a table".into()),
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Spec { headers, renames })
}

/// `[identity."RELEASE"]`: a `fields` table of `"Struct.field" = "name"`
/// or `"Struct.field" = { name = "name", type = "c_type" }`.
fn identity_renames(table: Value) -> Result<Vec<FieldRename>, String> {
    let Value::Table(mut table) = table else {
        return Err("must be a table".into());
    };
    let fields = match table.remove("fields") {
        Some(Value::Table(fields)) => fields,
        Some(_) => return Err("`fields` must be a table".into()),
        None => Table::new(),
    };
    if let Some(key) = table.keys().next() {
        return Err(format!("unknown key `{key}`"));
    }
    fields
        .into_iter()
        .map(|(path, value)| {
            let context = |error: &str| format!("fields.\"{path}\": {error}");
            let Some((owner, field)) = path.split_once('.') else {
                return Err(context("name it as \"Struct.field\""));
            };
            let (name, ty) = match value {
                Value::String(name) => (name, None),
                Value::Table(mut entry) => {
                    let name = match entry.remove("name") {
                        Some(Value::String(name)) => name,
                        _ => return Err(context("lacks a string `name`")),
                    };
                    let ty = match entry.remove("type") {
                        Some(Value::String(ty)) => Some(ty),
                        None => None,
                        Some(_) => return Err(context("`type` must be a string")),
                    };
                    if let Some(key) = entry.keys().next() {
                        return Err(context(&format!("unknown key `{key}`")));
                    }
                    (name, ty)
                }
                _ => return Err(context("must be a name or { name, type }")),
            };
            Ok(FieldRename {
                owner: owner.to_owned(),
                field: field.to_owned(),
                name,
                ty,
            })
        })
        .collect()
}

fn header_spec(defaults: &Table, mut header: Table) -> Result<HeaderSpec, String> {
    let file = match header.remove("file") {
        Some(Value::String(file)) => file,
        _ => return Err("a [[header]] lacks `file`".into()),
    };
    let context = |error: String| format!("header {file}: {error}");
    let sources = match header.remove("sources") {
        Some(Value::Array(sources)) => sources
            .into_iter()
            .map(|source| match source {
                Value::String(source) => Ok(PathBuf::from(source)),
                _ => Err(context("`sources` must hold strings".into())),
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(context("lacks `sources`".into())),
    };
    let integers = match header.remove("integers") {
        Some(Value::String(name)) if name == "enet" => Integers::Enet,
        Some(Value::String(name)) if name == "c" => Integers::C,
        _ => return Err(context("`integers` must be \"enet\" or \"c\"".into())),
    };
    let function_docs = match header.remove("function_docs") {
        Some(Value::Boolean(keep)) => keep,
        None => false,
        Some(_) => return Err(context("`function_docs` must be true or false".into())),
    };
    let opaque = match header.remove("opaque") {
        Some(Value::Array(names)) => names
            .into_iter()
            .map(|name| match name {
                Value::String(name) => Ok(name),
                _ => Err(context("`opaque` entries must be strings".into())),
            })
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
        Some(_) => return Err(context("`opaque` must be an array of names".into())),
    };
    let overrides = match header.remove("cbindgen") {
        Some(Value::Table(overrides)) => overrides,
        Some(_) => return Err(context("`cbindgen` must be a table".into())),
        None => Table::new(),
    };
    if let Some(key) = header.keys().next() {
        return Err(context(format!("unknown key `{key}`")));
    }
    let mut settings = defaults.clone();
    merge(&mut settings, overrides);
    let config: Config = Value::Table(settings)
        .try_into()
        .map_err(|error| context(format!("cbindgen settings: {error}")))?;
    Ok(HeaderSpec {
        file,
        sources,
        integers,
        function_docs,
        opaque,
        config,
    })
}

/// Merges `overrides` into `base`: tables key by key, anything else replaced.
fn merge(base: &mut Table, overrides: Table) {
    for (key, value) in overrides {
        match (base.get_mut(&key), value) {
            (Some(Value::Table(base_table)), Value::Table(override_table)) => {
                merge(base_table, override_table)
            }
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_settings_merge_over_defaults() {
        let specs = parse(
            r#"
            [defaults]
            tab_width = 3
            [defaults.fn]
            args = "horizontal"
            [[header]]
            file = "a.h"
            sources = ["src/a.rs"]
            integers = "c"
            [header.cbindgen.fn]
            prefix = "extern"
            "#,
        )
        .unwrap()
        .headers;
        assert_eq!(specs.len(), 1);
        assert_eq!(specs[0].file, "a.h");
        assert_eq!(specs[0].integers, Integers::C);
        assert_eq!(specs[0].config.tab_width, 3);
        assert_eq!(specs[0].config.function.prefix.as_deref(), Some("extern"));
        assert_eq!(specs[0].config.function.args, cbindgen::Layout::Horizontal);
    }

    #[test]
    fn identity_tables_list_field_renames() {
        let spec = parse(
            r#"
            [identity."1.3.18".fields]
            "ENetPeer.old" = "new"
            "ENetHost.flag" = { name = "count", type = "enet_uint32" }
            [[header]]
            file = "a.h"
            sources = []
            integers = "enet"
            "#,
        )
        .unwrap();
        let renames = spec.renames_of("1.3.18");
        assert_eq!(renames.len(), 2);
        let of = |owner: &str| renames.iter().find(|r| r.owner == owner).unwrap();
        assert_eq!(
            *of("ENetHost"),
            FieldRename {
                owner: "ENetHost".into(),
                field: "flag".into(),
                name: "count".into(),
                ty: Some("enet_uint32".into()),
            }
        );
        assert_eq!(
            (of("ENetPeer").name.as_str(), &of("ENetPeer").ty),
            ("new", &None)
        );
        assert!(spec.renames_of("1.3.17").is_empty());
    }

    #[test]
    fn a_rename_needs_struct_and_field() {
        let error = parse(
            r#"
            [identity."1.3.18".fields]
            old = "new"
            [[header]]
            file = "a.h"
            sources = []
            integers = "enet"
            "#,
        )
        .err()
        .unwrap();
        assert!(error.contains("Struct.field"), "{error}");
    }

    #[test]
    fn unknown_keys_are_refused() {
        let error = parse(
            r#"
            [[header]]
            file = "a.h"
            sources = []
            integers = "enet"
            typo = 1
            "#,
        )
        .err()
        .unwrap();
        assert!(error.contains("typo"), "{error}");
    }
}
