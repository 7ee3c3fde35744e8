//! Every struct size, alignment and field offset, every enum value and every
//! integer constant of the stock header, compared with ours.

use layout_check::{layout_checks, value_checks};

#[test]
fn every_type_field_and_size_matches_stock() {
    let checks = layout_checks();
    // The header has 30 structs/unions with hundreds of fields between them;
    // a generator that saw almost nothing must not pass silently.
    assert!(
        checks.len() > 400,
        "only {} layout checks generated",
        checks.len()
    );
    let wrong: Vec<_> = checks.iter().filter(|c| c.ours != c.stock).collect();
    assert!(
        wrong.is_empty(),
        "layout differs from stock ENet: {wrong:#?}"
    );
}

#[test]
fn every_enum_value_and_constant_matches_stock() {
    let checks = value_checks();
    assert!(
        checks.len() > 100,
        "only {} value checks generated",
        checks.len()
    );
    let wrong: Vec<_> = checks.iter().filter(|c| c.ours != c.stock).collect();
    assert!(
        wrong.is_empty(),
        "values differ from stock ENet: {wrong:#?}"
    );
}

#[test]
fn the_core_sizes_are_the_documented_ones() {
    // Independent of bindgen: the sizes programs rely on (host->peers[i]).
    use core::mem::size_of;
    assert_eq!(size_of::<enet::abi::ENetPeer>(), 456);
    assert_eq!(size_of::<enet::abi::ENetHost>(), 11024);
    assert_eq!(size_of::<enet::abi::ENetPacket>(), 48);
    assert_eq!(size_of::<enet::abi::ENetEvent>(), 32);
    assert_eq!(size_of::<enet::abi::ENetProtocol>(), 48);
}
