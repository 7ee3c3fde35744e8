//! Generates ENet's public C headers from the Rust sources with a pinned
//! cbindgen, as `cbindgen.toml` describes: one set per release identity
//! ([`Identity`]), `include/enet/*.h` (1.3.17) and
//! `include/1.3.18/enet/*.h`.
//!
//! Each header is one cbindgen run over the Rust files that define its
//! contents (`src/abi/<header>.rs`, plus the `src/ffi/*.rs` files whose
//! functions it declares). The identity's definitions are selected from its
//! model ([`identity`]), which is then shaped ([`shape`]) and written, and
//! two fixes cbindgen has no setting for are made to the text ([`text`]).

mod identity;
mod shape;
mod spec;
mod text;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use cbindgen::bindgen::ir::ItemContainer;
use cbindgen::Builder;

pub use identity::Identity;

/// The configuration file, relative to the repository root.
pub const CONFIG_FILE: &str = "cbindgen.toml";

/// One generated header.
pub struct Header {
    /// File name inside its identity's [`Identity::header_dir`].
    pub file: String,
    pub text: String,
}

/// The repository root (two levels above this crate).
pub fn repository_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Generates every header described by `root/cbindgen.toml`, as the
/// `identity` build of the library declares it.
pub fn generate(root: &Path, identity: Identity) -> Result<Vec<Header>, String> {
    let spec = spec::load(&root.join(CONFIG_FILE))?;
    if let Some((release, _)) = spec
        .renames
        .iter()
        .find(|(release, _)| Identity::from_release(release).is_none())
    {
        return Err(format!("{CONFIG_FILE}: no identity {release}"));
    }
    let renames = spec.renames_of(identity.release()).to_vec();
    let mut renamed = vec![false; renames.len()];
    let headers = spec
        .headers
        .into_iter()
        .map(|header| {
            let file = header.file.clone();
            generate_one(root, header, identity, &renames, &mut renamed)
                .map_err(|error| format!("{} {file}: {error}", identity.release()))
        })
        .collect::<Result<Vec<_>, String>>()?;
    // A rename no header applied names a field that is not there (any
    // more): the table is stale.
    if let Some(stale) = renames.iter().zip(&renamed).find(|(_, done)| !**done) {
        let rename = stale.0;
        return Err(format!(
            "{CONFIG_FILE}: identity {}: no header defines {}.{}",
            identity.release(),
            rename.owner,
            rename.field
        ));
    }
    Ok(headers)
}

fn generate_one(
    root: &Path,
    spec: spec::HeaderSpec,
    identity: Identity,
    renames: &[spec::FieldRename],
    renamed: &mut [bool],
) -> Result<Header, String> {
    let tagged = spec.config.style.generate_tag();
    let packed = spec.config.layout.packed.clone();
    let mut builder = Builder::new().with_config(spec.config);
    for source in &spec.sources {
        let path = root.join(source);
        if !path.is_file() {
            return Err(format!("source {} not found", source.display()));
        }
        builder = builder.with_src(path);
    }
    let mut bindings = builder
        .generate()
        .map_err(|error| format!("cbindgen: {error}"))?;
    identity::select(&mut bindings, identity)?;
    identity::rename_fields(&mut bindings, renames, renamed);
    shape::shape(
        &mut bindings,
        spec.integers,
        spec.function_docs,
        &spec.opaque,
    )?;

    let own_tags: HashSet<String> = if tagged {
        bindings
            .items
            .iter()
            .filter(|item| {
                matches!(
                    item,
                    ItemContainer::Struct(_) | ItemContainer::Union(_) | ItemContainer::Enum(_)
                )
            })
            .map(|item| item.deref().export_name().to_owned())
            .collect()
    } else {
        HashSet::new()
    };

    let mut written = Vec::new();
    bindings.write(&mut written);
    let text = String::from_utf8(written).map_err(|_| "cbindgen wrote non-UTF-8".to_owned())?;
    let text = text::underscore_tags(&text, &own_tags, packed.as_deref())?;
    let text = text::drop_final_enum_commas(&text);
    Ok(Header {
        file: spec.file,
        text,
    })
}

/// Writes `headers` into `dir`, creating it if needed.
pub fn write(dir: &Path, headers: &[Header]) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    for header in headers {
        let path = dir.join(&header.file);
        std::fs::write(&path, &header.text)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    }
    Ok(())
}

/// How a file in `dir` differs from its freshly generated text, one report
/// per differing header (empty when all match).
pub fn drift(dir: &Path, headers: &[Header]) -> Vec<String> {
    headers
        .iter()
        .filter_map(|header| {
            let path = dir.join(&header.file);
            match std::fs::read_to_string(&path) {
                Ok(on_disk) if on_disk == header.text => None,
                Ok(on_disk) => Some(describe_difference(&header.file, &on_disk, &header.text)),
                Err(error) => Some(format!("{}: cannot read: {error}\n", path.display())),
            }
        })
        .collect()
}

/// A short line diff: the lines between the common beginning and the
/// common end of the two texts, as `-` (checked in) and `+` (fresh).
fn describe_difference(file: &str, on_disk: &str, fresh: &str) -> String {
    const SHOWN: usize = 12;
    let old: Vec<&str> = on_disk.lines().collect();
    let new: Vec<&str> = fresh.lines().collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let removed = &old[prefix..old.len() - suffix];
    let added = &new[prefix..new.len() - suffix];

    let mut report = format!(
        "{file} differs from a fresh generation, from line {}:\n",
        prefix + 1
    );
    for (sign, lines) in [('-', removed), ('+', added)] {
        for line in lines.iter().take(SHOWN) {
            report.push_str(&format!("  {sign} {line}\n"));
        }
        if lines.len() > SHOWN {
            report.push_str(&format!(
                "  {sign} ... ({} more lines)\n",
                lines.len() - SHOWN
            ));
        }
    }
    if removed.is_empty() && added.is_empty() {
        report.push_str("  (line endings or the final newline differ)\n");
    }
    report
}
