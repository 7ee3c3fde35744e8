//! The extension entry points of `enet/enet_rs.h`: functions stock ENet
//! does not have, all named `enet_rs_*`. A program that never calls them
//! gets stock behaviour, apart from the documented defaults.

use core::ffi::c_int;

use crate::abi::*;
use crate::proto::{LossRecovery, RecoveryStats};

/// The extension set this library offers (`ENET_RS_VERSION`), so a program
/// can find out at run time whether it runs on enet-rs (stock ENet has no
/// such symbol) and which extensions it may call.
#[no_mangle]
pub extern "C" fn enet_rs_version() -> u32 {
    ENET_RS_VERSION
}

impl From<LossRecovery> for ENetRsLossRecovery {
    fn from(settings: LossRecovery) -> Self {
        ENetRsLossRecovery {
            perCommandDeadlines: u32::from(settings.per_command_deadlines),
            fastResend: u32::from(settings.fast_resend),
            keepStockTimeouts: u32::from(settings.keep_stock_timeouts),
            backoffPercent: u32::from(settings.backoff_percent),
            minimumTimeout: settings.minimum_timeout,
            congestionControl: u32::from(settings.congestion_control),
            thinStreamCommands: u32::from(settings.thin_stream_commands),
            repeatAcknowledgements: u32::from(settings.repeat_acknowledgements),
        }
    }
}

impl From<ENetRsLossRecovery> for LossRecovery {
    fn from(settings: ENetRsLossRecovery) -> Self {
        LossRecovery {
            per_command_deadlines: settings.perCommandDeadlines != 0,
            fast_resend: settings.fastResend.min(255) as u16,
            keep_stock_timeouts: settings.keepStockTimeouts != 0,
            backoff_percent: settings.backoffPercent.clamp(100, 1000) as u16,
            minimum_timeout: settings.minimumTimeout,
            congestion_control: settings.congestionControl != 0,
            thin_stream_commands: settings.thinStreamCommands.min(u32::from(u16::MAX)) as u16,
            repeat_acknowledgements: settings.repeatAcknowledgements != 0,
        }
        .sanitized()
    }
}

/// The loss-recovery preset a mode stands for: the program can adjust it
/// and hand it to `enet_rs_host_set_loss_recovery`. 0, or -1 for an
/// unknown mode or a NULL `settings`.
///
/// # Safety
/// `settings` must be NULL or writable.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_loss_recovery_preset(
    mode: c_int,
    settings: *mut ENetRsLossRecovery,
) -> c_int {
    guard!(-1, {
        use ENetRsLossRecoveryMode::*;
        // The mode comes as a plain int (no undefined behaviour on a bad one).
        let preset = match mode {
            m if m == ENET_RS_LOSS_RECOVERY_STOCK as c_int => LossRecovery::STOCK,
            m if m == ENET_RS_LOSS_RECOVERY_DEFAULT as c_int => LossRecovery::DEFAULT,
            m if m == ENET_RS_LOSS_RECOVERY_FAST as c_int => LossRecovery::FAST,
            _ => return -1,
        };
        let Some(out) = arg_mut!(settings) else {
            return -1;
        };
        *out = preset.into();
        0
    })
}

/// Sets the loss recovery of every peer of `host`, now and whenever a peer
/// slot is reset (overriding `ENET_RS_LOSS_RECOVERY`). 0, or -1 for a NULL
/// argument.
///
/// # Safety
/// `host` must be NULL or a live host; `settings` NULL or readable.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_set_loss_recovery(
    host: *mut ENetHost,
    settings: *const ENetRsLossRecovery,
) -> c_int {
    guard!(-1, {
        let Some(settings) = arg_ref!(settings) else {
            return -1;
        };
        try_host!(let host = host, else -1);
        host.set_loss_recovery((*settings).into());
        0
    })
}

/// The loss recovery `host` gives its peers. 0, or -1 for a NULL argument.
///
/// # Safety
/// `host` must be NULL or a live host; `settings` NULL or writable.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_get_loss_recovery(
    host: *mut ENetHost,
    settings: *mut ENetRsLossRecovery,
) -> c_int {
    guard!(-1, {
        let Some(out) = arg_mut!(settings) else {
            return -1;
        };
        try_host!(let host = host, else -1);
        *out = host.loss_recovery().into();
        0
    })
}

/// Sets the loss recovery of one peer until its slot is reset (a new
/// connection starts with the host's). 0, or -1 for a NULL or foreign
/// argument.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `settings` NULL or
/// readable.
/// One thread at a time per host. From one of the peer's host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_set_loss_recovery(
    peer: *mut ENetPeer,
    settings: *const ENetRsLossRecovery,
) -> c_int {
    guard!(-1, {
        let Some(settings) = arg_ref!(settings) else {
            return -1;
        };
        try_peer!(let (host, index) = peer, else -1);
        host.set_peer_loss_recovery(index, (*settings).into());
        0
    })
}

/// The loss recovery of one peer. 0, or -1 for a NULL or foreign argument.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `settings` NULL or
/// writable.
/// One thread at a time per host. From one of the peer's host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_get_loss_recovery(
    peer: *mut ENetPeer,
    settings: *mut ENetRsLossRecovery,
) -> c_int {
    guard!(-1, {
        let Some(out) = arg_mut!(settings) else {
            return -1;
        };
        try_peer!(let (host, index) = peer, else -1);
        *out = host.peer_loss_recovery(index).into();
        0
    })
}

/// What the peer's loss recovery did since the peer was last reset. 0, or
/// -1 for a NULL or foreign argument.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `stats` NULL or writable.
/// One thread at a time per host. From one of the peer's host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_get_stats(
    peer: *mut ENetPeer,
    stats: *mut ENetRsPeerStats,
) -> c_int {
    guard!(-1, {
        let Some(out) = arg_mut!(stats) else {
            return -1;
        };
        try_peer!(let (host, index) = peer, else -1);
        let (stats, window): (RecoveryStats, u32) = host.peer_recovery_stats(index);
        *out = ENetRsPeerStats {
            retransmittedCommands: stats.retransmitted_commands,
            retransmittedBytes: stats.retransmitted_bytes,
            fastRetransmits: stats.fast_retransmits,
            timeouts: stats.timeouts,
            congestionWindow: window,
        };
        0
    })
}
