//! The release identities the library can be built as, and the choice of
//! cfg-gated definitions each one's header set is written from.
//!
//! Values that differ between identities are pairs of Rust definitions
//! gated on the Cargo feature `identity-1-3-18` (e.g. `ENET_VERSION_PATCH`
//! in `src/abi/enet.rs`). cbindgen keeps every definition with its `cfg`
//! and would write each under an `#if`; a header set is for one identity,
//! so the generator evaluates the cfg as Cargo would for that identity's
//! features, drops the definitions that do not apply and clears the cfg of
//! those that do. Any other cfg is refused: the generator cannot know its
//! value, and a stock-style header has no `#if` around a definition.
//!
//! Names are not values: a release that renamed struct fields keeps the
//! Rust names (one struct for every build), and `cbindgen.toml`'s
//! `[identity."RELEASE".fields]` table gives that release's header set its
//! own names ([`rename_fields`]).

use cbindgen::bindgen::ir::{Cfg, GenericPath, ItemContainer, Path, Type};
use cbindgen::Bindings;

use crate::spec::FieldRename;

/// The Cargo feature that selects ENet 1.3.18's identity.
const FEATURE_1_3_18: &str = "identity-1-3-18";

/// A release of ENet the library identifies as; each has its own header set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Identity {
    /// Debian's 1.3.17: the default build, and `include/enet/`.
    Enet1_3_17,
    /// Upstream's 1.3.18: the `identity-1-3-18` feature, and
    /// `include/1.3.18/enet/`.
    Enet1_3_18,
}

impl Identity {
    /// Every identity, the default first.
    pub const ALL: [Identity; 2] = [Identity::Enet1_3_17, Identity::Enet1_3_18];

    /// The release number, as `--identity` and CMake's `ENET_RS_IDENTITY`
    /// spell it.
    pub fn release(self) -> &'static str {
        match self {
            Identity::Enet1_3_17 => "1.3.17",
            Identity::Enet1_3_18 => "1.3.18",
        }
    }

    /// The identity named by `release` ("1.3.17" or "1.3.18").
    pub fn from_release(release: &str) -> Option<Identity> {
        Identity::ALL
            .into_iter()
            .find(|identity| identity.release() == release)
    }

    /// Where its header set lives, relative to the repository root. The
    /// default keeps the place programs and packages have always used.
    pub fn header_dir(self) -> &'static str {
        match self {
            Identity::Enet1_3_17 => "include/enet",
            Identity::Enet1_3_18 => "include/1.3.18/enet",
        }
    }

    /// The Cargo features its build enables (of those a cfg may name).
    fn features(self) -> &'static [&'static str] {
        match self {
            Identity::Enet1_3_17 => &[],
            Identity::Enet1_3_18 => &[FEATURE_1_3_18],
        }
    }
}

/// Keeps, everywhere in `bindings`, only the definitions whose cfg holds
/// for `identity`, and clears the cfg of those kept.
pub fn select(bindings: &mut Bindings, identity: Identity) -> Result<(), String> {
    let features = identity.features();
    retain(&mut bindings.constants, features, |item| &mut item.cfg)?;
    retain(&mut bindings.globals, features, |item| &mut item.cfg)?;
    retain(&mut bindings.functions, features, |item| &mut item.cfg)?;
    retain(&mut bindings.items, features, item_cfg)?;
    for item in &mut bindings.items {
        match item {
            ItemContainer::Struct(item) => retain(&mut item.fields, features, |f| &mut f.cfg)?,
            ItemContainer::Union(item) => retain(&mut item.fields, features, |f| &mut f.cfg)?,
            ItemContainer::Enum(item) => retain(&mut item.variants, features, |v| &mut v.cfg)?,
            ItemContainer::Constant(_)
            | ItemContainer::Static(_)
            | ItemContainer::OpaqueItem(_)
            | ItemContainer::Typedef(_) => {}
        }
    }
    Ok(())
}

/// Gives the struct fields `renames` lists their names (and types) in this
/// identity's headers, marking in `renamed` each entry applied.
pub fn rename_fields(bindings: &mut Bindings, renames: &[FieldRename], renamed: &mut [bool]) {
    for item in &mut bindings.items {
        let ItemContainer::Struct(item) = item else {
            continue;
        };
        for (rename, done) in renames.iter().zip(renamed.iter_mut()) {
            if item.export_name != rename.owner {
                continue;
            }
            if let Some(field) = item.fields.iter_mut().find(|f| f.name == rename.field) {
                field.name = rename.name.clone();
                if let Some(ty) = &rename.ty {
                    field.ty = Type::Path(GenericPath::new(Path::new(ty.clone()), Vec::new()));
                }
                *done = true;
            }
        }
    }
}

fn item_cfg(item: &mut ItemContainer) -> &mut Option<Cfg> {
    match item {
        ItemContainer::Constant(item) => &mut item.cfg,
        ItemContainer::Static(item) => &mut item.cfg,
        ItemContainer::OpaqueItem(item) => &mut item.cfg,
        ItemContainer::Struct(item) => &mut item.cfg,
        ItemContainer::Union(item) => &mut item.cfg,
        ItemContainer::Enum(item) => &mut item.cfg,
        ItemContainer::Typedef(item) => &mut item.cfg,
    }
}

/// Drops the entries of `list` whose cfg does not hold and clears the cfg
/// of the others; the first cfg that cannot be evaluated is the error.
fn retain<T>(
    list: &mut Vec<T>,
    features: &[&str],
    cfg_of: impl Fn(&mut T) -> &mut Option<Cfg>,
) -> Result<(), String> {
    let mut error = None;
    list.retain_mut(|entry| match cfg_of(entry).take() {
        None => true,
        Some(cfg) => holds(&cfg, features).unwrap_or_else(|message| {
            error.get_or_insert(message);
            true
        }),
    });
    error.map_or(Ok(()), Err)
}

/// Whether `cfg` holds in a build with exactly `features` enabled.
fn holds(cfg: &Cfg, features: &[&str]) -> Result<bool, String> {
    match cfg {
        Cfg::Named(key, value) if key == "feature" && value == FEATURE_1_3_18 => {
            Ok(features.contains(&value.as_str()))
        }
        Cfg::Not(inner) => Ok(!holds(inner, features)?),
        Cfg::All(all) => {
            for cfg in all {
                if !holds(cfg, features)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Cfg::Any(any) => {
            for cfg in any {
                if holds(cfg, features)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        other => Err(format!(
            "`#[cfg({other})]`: a header set can only depend on the feature \
             `{FEATURE_1_3_18}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feature(name: &str) -> Cfg {
        Cfg::Named("feature".into(), name.into())
    }

    #[test]
    fn the_identity_feature_holds_only_for_1_3_18() {
        let cfg = feature(FEATURE_1_3_18);
        let default = Identity::Enet1_3_17.features();
        let later = Identity::Enet1_3_18.features();
        assert_eq!(holds(&cfg, default), Ok(false));
        assert_eq!(holds(&cfg, later), Ok(true));
        let negated = Cfg::Not(Box::new(cfg.clone()));
        assert_eq!(holds(&negated, default), Ok(true));
        assert_eq!(holds(&negated, later), Ok(false));
        let both = Cfg::All(vec![cfg.clone(), negated.clone()]);
        let either = Cfg::Any(vec![cfg, negated]);
        assert_eq!(holds(&both, later), Ok(false));
        assert_eq!(holds(&either, default), Ok(true));
    }

    #[test]
    fn any_other_cfg_is_refused() {
        for (cfg, named) in [
            (Cfg::Boolean("unix".into()), "cfg(unix)"),
            (
                Cfg::Named("target_os".into(), "linux".into()),
                "cfg(target_os = \"linux\")",
            ),
            (feature("ring"), "cfg(feature = \"ring\")"),
            (Cfg::Not(Box::new(Cfg::Boolean("test".into()))), "cfg(test)"),
        ] {
            let error = holds(&cfg, &[]).unwrap_err();
            assert!(error.contains(named), "{error}");
        }
    }

    #[test]
    fn kept_entries_lose_their_cfg_and_the_others_are_dropped() {
        let only_later = Some(feature(FEATURE_1_3_18));
        let only_default = Some(Cfg::Not(Box::new(feature(FEATURE_1_3_18))));
        let mut list = vec![(1, None), (17, only_default), (18, only_later)];
        retain(&mut list, Identity::Enet1_3_18.features(), |entry| {
            &mut entry.1
        })
        .unwrap();
        let left: Vec<(i32, bool)> = list.iter().map(|(n, cfg)| (*n, cfg.is_none())).collect();
        assert_eq!(left, vec![(1, true), (18, true)]);
    }

    #[test]
    fn releases_name_their_identities() {
        for identity in Identity::ALL {
            assert_eq!(Identity::from_release(identity.release()), Some(identity));
        }
        assert_eq!(Identity::from_release("1.3.16"), None);
    }
}
