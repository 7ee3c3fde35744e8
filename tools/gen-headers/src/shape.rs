//! Shaping cbindgen's parsed model of a header before it is written, so the
//! result reads like (and means exactly what) the stock ENet header does.
//!
//! Everything here works on cbindgen's typed IR (`unstable_ir`, pinned):
//! - types are written in the order the header's `export.include` lists
//!   them, and nothing else may appear (no silently opaque struct);
//! - Rust's `u8`/`u16`/`u32` become `enet_uint8`... (or C's unsigned types
//!   in `types.h`);
//! - a struct, union or enum is named by its typedef once that typedef is
//!   complete, and by its tag (`struct _ENetHost *`) only before that;
//! - prototypes list parameter types only, as most stock prototypes do (the
//!   Rust names are implementation details), and carry no Rust
//!   documentation (it is written for Rust maintainers);
//! - unsigned constants beyond `INT_MAX` get a `U` suffix, so their C type
//!   is `unsigned int` as in stock (`0xFFFFFFFFU`), not `long`.

use std::collections::HashSet;

use cbindgen::bindgen::ir::{
    Constant, Documentation, GenericPath, IntKind, ItemContainer, Literal, Path, PrimitiveType,
    Type,
};
use cbindgen::Bindings;

use crate::spec::Integers;

/// Applies every shaping step to freshly generated `bindings`.
pub fn shape(
    bindings: &mut Bindings,
    integers: Integers,
    function_docs: bool,
    opaque: &[String],
) -> Result<(), String> {
    let order = bindings.config.export.include.clone();
    order_items(&mut bindings.items, &order, opaque)?;
    for item in &mut bindings.items {
        for_each_type_in_item(item, &mut |ty| spell_integer(ty, integers));
    }
    for function in &mut bindings.functions {
        if function_docs {
            // The `# Safety` section speaks of Rust; C readers get the rest.
            let lines = &mut function.documentation.doc_comment;
            if let Some(safety) = lines.iter().position(|line| line.trim() == "# Safety") {
                lines.truncate(safety);
            }
            while lines.last().is_some_and(|line| line.trim().is_empty()) {
                lines.pop();
            }
        } else {
            function.documentation = Documentation::none();
        }
        for_each_type(&mut function.ret, &mut |ty| spell_integer(ty, integers));
        for argument in &mut function.args {
            for_each_type(&mut argument.ty, &mut |ty| spell_integer(ty, integers));
            if !function_docs {
                argument.name = None;
            }
        }
    }
    name_complete_types_by_typedef(bindings);
    for constant in &mut bindings.constants {
        mark_unsigned(constant);
    }
    Ok(())
}

/// Puts the items in the order of `order` (the header's `export.include`),
/// refusing items it does not list, listed names cbindgen did not find, and
/// opaque items (which is what cbindgen makes of a struct it cannot parse)
/// other than those the header declares `opaque`.
fn order_items(
    items: &mut [ItemContainer],
    order: &[String],
    opaque: &[String],
) -> Result<(), String> {
    let mut unlisted = Vec::new();
    for item in items.iter() {
        let name = item.deref().name();
        let declared_opaque = opaque.iter().any(|allowed| allowed == name);
        if matches!(item, ItemContainer::OpaqueItem(_)) && !declared_opaque {
            return Err(format!(
                "`{name}` came out opaque: cbindgen could not read its definition"
            ));
        }
        if !order.iter().any(|listed| listed == name) {
            unlisted.push(name.to_owned());
        }
    }
    if !unlisted.is_empty() {
        return Err(format!(
            "types not listed in this header's export.include: {}",
            unlisted.join(", ")
        ));
    }
    let found: HashSet<&str> = items.iter().map(|item| item.deref().name()).collect();
    let missing: Vec<&str> = order
        .iter()
        .map(String::as_str)
        .filter(|name| !found.contains(name))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "export.include names types the sources do not define: {}",
            missing.join(", ")
        ));
    }
    items.sort_by_key(|item| {
        let name = item.deref().name();
        order.iter().position(|listed| listed == name)
    });
    Ok(())
}

/// Rewrites Rust's unsigned 8/16/32-bit integers to the header's spelling.
fn spell_integer(ty: &mut Type, integers: Integers) {
    let Type::Primitive(PrimitiveType::Integer {
        signed: false,
        kind,
        zeroable,
    }) = *ty
    else {
        return;
    };
    let bits = match kind {
        IntKind::B8 => 8,
        IntKind::B16 => 16,
        IntKind::B32 => 32,
        _ => return,
    };
    *ty = match integers {
        Integers::Enet => Type::Path(GenericPath::new(
            Path::new(format!("enet_uint{bits}")),
            Vec::new(),
        )),
        Integers::C => Type::Primitive(match bits {
            8 => PrimitiveType::UChar,
            16 => PrimitiveType::Integer {
                signed: false,
                kind: IntKind::Short,
                zeroable,
            },
            _ => PrimitiveType::Integer {
                signed: false,
                kind: IntKind::Int,
                zeroable,
            },
        }),
    };
}

/// cbindgen refers to every struct, union and enum by its tag. C only needs
/// the tag before the typedef is complete (a struct pointing at itself, or
/// at a type defined further down); elsewhere the typedef name is used, as
/// stock ENet does. Prototypes come after every type, so they never need it.
fn name_complete_types_by_typedef(bindings: &mut Bindings) {
    let mut complete: HashSet<String> = HashSet::new();
    for item in &mut bindings.items {
        for_each_type_in_item(item, &mut |ty| use_typedef_name(ty, &complete));
        complete.insert(item.deref().export_name().to_owned());
    }
    for function in &mut bindings.functions {
        for_each_type(&mut function.ret, &mut |ty| use_typedef_name(ty, &complete));
        for argument in &mut function.args {
            for_each_type(&mut argument.ty, &mut |ty| use_typedef_name(ty, &complete));
        }
    }
}

fn use_typedef_name(ty: &mut Type, complete: &HashSet<String>) {
    if let Type::Path(path) = ty {
        if path.ctype().is_some() && complete.contains(path.export_name()) {
            // A fresh path carries no declaration keyword.
            *path = GenericPath::new(
                Path::new(path.export_name().to_owned()),
                path.generics().to_vec(),
            );
        }
    }
}

/// Gives unsigned constants that do not fit a C `int` a `U` suffix (in hex,
/// the way masks are written), so the macro's type is `unsigned int`.
fn mark_unsigned(constant: &mut Constant) {
    let Type::Primitive(PrimitiveType::Integer { signed: false, .. }) = constant.ty else {
        return;
    };
    let Literal::Expr(text) = &mut constant.value else {
        return;
    };
    if let Ok(value) = text.parse::<u64>() {
        if value > i32::MAX as u64 {
            *text = format!("0x{value:X}U");
        }
    }
}

/// Calls `visit` on every type node of an item's fields or alias, innermost first.
fn for_each_type_in_item(item: &mut ItemContainer, visit: &mut impl FnMut(&mut Type)) {
    match item {
        ItemContainer::Struct(item) => {
            for field in &mut item.fields {
                for_each_type(&mut field.ty, visit);
            }
        }
        ItemContainer::Union(item) => {
            for field in &mut item.fields {
                for_each_type(&mut field.ty, visit);
            }
        }
        ItemContainer::Typedef(item) => for_each_type(&mut item.aliased, visit),
        ItemContainer::Constant(item) => for_each_type(&mut item.ty, visit),
        ItemContainer::Static(item) => for_each_type(&mut item.ty, visit),
        // C-like enums hold no types; opaque items were refused earlier.
        ItemContainer::Enum(_) | ItemContainer::OpaqueItem(_) => {}
    }
}

/// Calls `visit` on `ty` and every type inside it, innermost first.
fn for_each_type(ty: &mut Type, visit: &mut impl FnMut(&mut Type)) {
    match ty {
        Type::Ptr { ty, .. } | Type::Array(ty, _) => for_each_type(ty, visit),
        Type::FuncPtr { ret, args, .. } => {
            for_each_type(ret, visit);
            for (_, arg) in args {
                for_each_type(arg, visit);
            }
        }
        Type::Path(_) | Type::Primitive(_) => {}
    }
    visit(ty);
}
