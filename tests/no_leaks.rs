//! Every piece of C-visible memory (hosts, peer arrays, channels, packets)
//! goes through the allocator hooks and is returned: after a lossy session
//! with fragments, resets and every kind of disconnect, allocations and
//! frees balance.
//!
//! A test binary of its own: the hooks it installs count every allocation
//! of the process and stay installed (they also switch the packet pool off
//! for good), so no other test may run beside it.

// The engine binary's simulated network; this binary uses part of it.
#[path = "engine/sim/mod.rs"]
#[allow(dead_code)]
mod sim;

use std::sync::atomic::{AtomicUsize, Ordering};

use enet::abi::{ENetCallbacks, ENET_VERSION};
use enet::ffi::callbacks::enet_initialize_with_callbacks;
use enet::mem::{CBox, PacketFlags, PacketRef};
use enet::proto::{ChannelId, PeerIndex};
use sim::{connect, Link, Sim};

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static FREES: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn counting_malloc(size: usize) -> *mut core::ffi::c_void {
    ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
    // SAFETY: plain libc allocation.
    unsafe { libc::malloc(size) }
}

unsafe extern "C" fn counting_free(memory: *mut core::ffi::c_void) {
    if !memory.is_null() {
        FREES.fetch_add(1, Ordering::SeqCst);
    }
    // SAFETY: memory came from `counting_malloc` (or is NULL).
    unsafe { libc::free(memory) }
}

fn send(sim: &mut Sim, host: usize, peer: PeerIndex, channel: u8, data: &[u8], flags: PacketFlags) {
    let packet = PacketRef::new_with_data(data, flags).unwrap();
    let accepted = sim
        .host(host)
        .with_peer(peer, |view, terms| {
            view.send(ChannelId::from(channel), &packet, terms)
        })
        .is_ok();
    let raw = packet.hand_to_program();
    if !accepted {
        // SAFETY: nobody took the packet; it is ours to destroy.
        unsafe { enet::mem::packet::destroy(raw) };
    }
}

#[test]
fn allocations_and_frees_balance() {
    let hooks = ENetCallbacks {
        malloc: Some(counting_malloc),
        free: Some(counting_free),
        no_memory: None,
    };
    // SAFETY: valid hooks, installed before anything is allocated.
    assert_eq!(
        unsafe { enet_initialize_with_callbacks(ENET_VERSION, &hooks) },
        0
    );
    {
        let mut sim = Sim::new(41, u32::MAX - 1000);
        let server = sim.add_host(4, 3);
        let clients: Vec<usize> = (0..3).map(|_| sim.add_host(1, 3)).collect();
        let peers: Vec<PeerIndex> = clients
            .iter()
            .map(|&c| connect(&mut sim, c, server, 3, 0).0)
            .collect();
        sim.link = Link {
            latency: 10,
            jitter: 20,
            loss: 0.15,
            duplicate: 0.05,
        };
        for round in 0..200u32 {
            for (&client, &peer) in clients.iter().zip(&peers) {
                send(
                    &mut sim,
                    client,
                    peer,
                    (round % 3) as u8,
                    &round.to_be_bytes(),
                    PacketFlags::from_bits_retain(round % 3),
                );
                if round % 50 == 0 {
                    send(
                        &mut sim,
                        client,
                        peer,
                        1,
                        &vec![round as u8; 20_000],
                        PacketFlags::from_bits_retain(round % 2 * 8),
                    );
                }
            }
            sim.step();
        }
        // Leave in every way, with traffic still queued.
        let _ = sim.host(clients[0]).disconnect(peers[0], 1);
        let _ = sim.host(clients[1]).disconnect_later(peers[1], 2);
        sim.host(clients[2]).reset_peer(peers[2]);
        sim.run_for(20_000);
        // Hosts (with whatever they still hold) are destroyed with the sim.
    }
    let allocations = ALLOCATIONS.load(Ordering::SeqCst);
    let frees = FREES.load(Ordering::SeqCst);
    assert!(
        allocations > 500,
        "hooks saw only {allocations} allocations"
    );
    assert_eq!(
        allocations,
        frees,
        "{} allocations never freed",
        allocations - frees
    );

    // A value made in place whose making panics: the entry point's guard
    // catches the panic, and the zeroed block goes back to the hooks.
    let caught = std::panic::catch_unwind(|| {
        // SAFETY: `init` never answers, so no value is taken as made.
        unsafe { CBox::<[u64; 64]>::try_new_zeroed_with(|_| panic!("making the value failed")) }
    });
    assert!(caught.is_err());
    // And one whose making declines.
    // SAFETY: `init` answers false, so no value is taken as made.
    assert!(unsafe { CBox::<[u64; 64]>::try_new_zeroed_with(|_| false) }.is_none());
    assert_eq!(ALLOCATIONS.load(Ordering::SeqCst), allocations + 2);
    assert_eq!(
        FREES.load(Ordering::SeqCst),
        frees + 2,
        "a block made in place was not freed"
    );
}
