//! Reads the stock ENet header with bindgen (clang computes the layout) and
//! writes two files into OUT_DIR:
//! - `stock.rs`: the stock bindings, to compare against;
//! - `checks.rs`: one assertion per struct size, alignment, field offset,
//!   enum value and integer constant bindgen saw, comparing ours to stock.
//!
//! Nothing here lists fields or values by hand: every item comes from the
//! header, so a field we lack fails to compile and a wrong offset fails a test.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::rc::Rc;

use bindgen::callbacks::{EnumVariantValue, FieldInfo, ParseCallbacks};
use bindgen::FieldVisibilityKind;

const STOCK_HEADER_DIR: &str = "/usr/include";

#[derive(Default, Debug)]
struct Seen {
    /// (C struct or union name, field name)
    fields: BTreeSet<(String, String)>,
    /// (C enum name, variant name, value)
    variants: BTreeSet<(String, String, i64)>,
    /// (macro or anonymous-enum constant name, value)
    constants: BTreeSet<(String, i64)>,
}

#[derive(Debug)]
struct Recorder(Rc<RefCell<Seen>>);

impl ParseCallbacks for Recorder {
    fn field_visibility(&self, info: FieldInfo<'_>) -> Option<FieldVisibilityKind> {
        self.0
            .borrow_mut()
            .fields
            .insert((info.type_name.to_string(), info.field_name.to_string()));
        None
    }

    fn enum_variant_name(
        &self,
        enum_name: Option<&str>,
        variant: &str,
        value: EnumVariantValue,
    ) -> Option<String> {
        let value = match value {
            EnumVariantValue::Boolean(b) => i64::from(b),
            EnumVariantValue::Signed(v) => v,
            EnumVariantValue::Unsigned(v) => v as i64,
        };
        let enum_name = enum_name
            .unwrap_or("")
            .trim_start_matches("enum ")
            .to_string();
        self.0
            .borrow_mut()
            .variants
            .insert((enum_name, variant.to_string(), value));
        None
    }

    fn int_macro(&self, name: &str, value: i64) -> Option<bindgen::callbacks::IntKind> {
        self.0
            .borrow_mut()
            .constants
            .insert((name.to_string(), value));
        None
    }
}

/// Our name for a stock C type: the typedef name, i.e. without the tag's `_`.
fn our_type(stock: &str) -> String {
    stock.trim_start_matches('_').to_string()
}

/// Our name for a field: bindgen spells the C field `type` as `type_`.
fn our_field(field: &str) -> &str {
    if field == "type_" {
        "r#type"
    } else {
        field
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={STOCK_HEADER_DIR}/enet");
    let seen = Rc::new(RefCell::new(Seen::default()));
    let bindings = bindgen::Builder::default()
        .header_contents(
            "stock.h",
            "#include <enet/enet.h>\n#include <enet/time.h>\n",
        )
        .clang_arg(format!("-I{STOCK_HEADER_DIR}"))
        .allowlist_type("_?ENet.*")
        .allowlist_var("ENET_.*")
        .parse_callbacks(Box::new(Recorder(seen.clone())))
        .generate()
        .expect("bindgen could not read the stock ENet header (is libenet-dev installed?)");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    bindings.write_to_file(out.join("stock.rs")).unwrap();

    let seen = seen.borrow();
    let mut checks = String::new();

    // Every struct or union with fields: size, alignment, each field offset.
    let types: BTreeSet<&str> = seen
        .fields
        .iter()
        .map(|(ty, _)| ty.as_str())
        .filter(|ty| ty.trim_start_matches('_').starts_with("ENet"))
        .collect();
    writeln!(
        checks,
        "pub fn layout_checks() -> Vec<LayoutCheck> {{ vec!["
    )
    .unwrap();
    for ty in &types {
        let ours = our_type(ty);
        writeln!(
            checks,
            "LayoutCheck {{ what: \"sizeof {ours}\", ours: core::mem::size_of::<enet::abi::{ours}>(), stock: core::mem::size_of::<stock::{ty}>() }},"
        )
        .unwrap();
        writeln!(
            checks,
            "LayoutCheck {{ what: \"alignof {ours}\", ours: core::mem::align_of::<enet::abi::{ours}>(), stock: core::mem::align_of::<stock::{ty}>() }},"
        )
        .unwrap();
        for (_, field) in seen.fields.iter().filter(|(t, _)| t == ty) {
            writeln!(
                checks,
                "LayoutCheck {{ what: \"offsetof {ours}.{field}\", ours: core::mem::offset_of!(enet::abi::{ours}, {}), stock: core::mem::offset_of!(stock::{ty}, {}) }},",
                our_field(field),
                field
            )
            .unwrap();
            // Field sizes too, so a field of the right offset but wrong width fails.
            writeln!(
                checks,
                "LayoutCheck {{ what: \"sizeof {ours}.{field}\", ours: field_size(|v: &enet::abi::{ours}| core::ptr::addr_of!(v.{})), stock: field_size(|v: &stock::{ty}| core::ptr::addr_of!(v.{})) }},",
                our_field(field),
                field
            )
            .unwrap();
        }
    }
    // Typedefs without fields that programs still size.
    for (ours, stock) in [
        ("ENetSocket", "ENetSocket"),
        ("ENetSocketSet", "ENetSocketSet"),
        ("ENetVersion", "ENetVersion"),
        ("ENetPeerState", "ENetPeerState"),
        ("ENetEventType", "ENetEventType"),
        ("ENetSocketType", "ENetSocketType"),
        ("ENetSocketOption", "ENetSocketOption"),
        ("ENetSocketShutdown", "ENetSocketShutdown"),
        ("ENetChecksumCallback", "ENetChecksumCallback"),
        ("ENetInterceptCallback", "ENetInterceptCallback"),
        ("ENetPacketFreeCallback", "ENetPacketFreeCallback"),
    ] {
        writeln!(
            checks,
            "LayoutCheck {{ what: \"sizeof {ours}\", ours: core::mem::size_of::<enet::abi::{ours}>(), stock: core::mem::size_of::<stock::{stock}>() }},"
        )
        .unwrap();
    }
    writeln!(checks, "] }}").unwrap();

    // Every named enum variant and every integer constant.
    writeln!(checks, "pub fn value_checks() -> Vec<ValueCheck> {{ vec![").unwrap();
    for (enum_name, variant, value) in &seen.variants {
        let named_enet_enum = enum_name.trim_start_matches('_').starts_with("ENet");
        let anonymous_enet_enum = enum_name.contains("/enet/") && variant.starts_with("ENET_");
        if !named_enet_enum && !anonymous_enet_enum {
            continue; // system headers' enums come along with <enet/enet.h>
        }
        let ours = if anonymous_enet_enum {
            // Anonymous enums hold plain constants.
            format!("enet::abi::{variant} as i64")
        } else {
            format!("enet::abi::{}::{variant} as i64", our_type(enum_name))
        };
        writeln!(
            checks,
            "ValueCheck {{ what: \"{enum_name}::{variant}\", ours: {ours}, stock: {value} }},"
        )
        .unwrap();
    }
    for (name, value) in &seen.constants {
        if name.starts_with("ENET_") && !name.starts_with("ENET_TIME_OVERFLOW") {
            writeln!(
                checks,
                "ValueCheck {{ what: \"{name}\", ours: enet::abi::{name} as i64, stock: {value} }},"
            )
            .unwrap();
        }
    }
    writeln!(checks, "] }}").unwrap();
    std::fs::write(out.join("checks.rs"), checks).unwrap();
}
