//! The ENet library enetperf drives, loaded at run time (`dlopen`), so the
//! same program measures stock ENet 1.3.17 and enet-rs: only the 1.3.17
//! API, whose struct layouts are the same in both (the `enet::abi` types
//! are checked against Debian's header).

use std::ffi::{c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};

use enet::abi::{
    ENetAddress, ENetEvent, ENetHost, ENetPacket, ENetPeer, ENetRsHostStats, ENetRsLossRecovery,
    ENetRsLossRecoveryMode, ENetRsNetsimStats,
};

/// Debian's stock library.
pub const STOCK: &str = "/usr/lib/x86_64-linux-gnu/libenet.so.7";

type Initialize = unsafe extern "C" fn() -> c_int;
type HostCreate = unsafe extern "C" fn(*const ENetAddress, usize, usize, u32, u32) -> *mut ENetHost;
type HostDestroy = unsafe extern "C" fn(*mut ENetHost);
type HostConnect =
    unsafe extern "C" fn(*mut ENetHost, *const ENetAddress, usize, u32) -> *mut ENetPeer;
type HostService = unsafe extern "C" fn(*mut ENetHost, *mut ENetEvent, u32) -> c_int;
type PacketCreate = unsafe extern "C" fn(*const c_void, usize, u32) -> *mut ENetPacket;
type PacketDestroy = unsafe extern "C" fn(*mut ENetPacket);
type PeerSend = unsafe extern "C" fn(*mut ENetPeer, u8, *mut ENetPacket) -> c_int;
type PeerDisconnect = unsafe extern "C" fn(*mut ENetPeer, u32);
type LinkedVersion = unsafe extern "C" fn() -> u32;
type PeerStats = unsafe extern "C" fn(*mut ENetPeer, *mut enet::abi::ENetRsPeerStats) -> c_int;
type LossRecoveryPreset = unsafe extern "C" fn(c_int, *mut ENetRsLossRecovery) -> c_int;
type HostSetLossRecovery = unsafe extern "C" fn(*mut ENetHost, *const ENetRsLossRecovery) -> c_int;
type HostSetNetsim = unsafe extern "C" fn(*mut ENetHost, *const std::ffi::c_char) -> c_int;
type HostNetsimStats = unsafe extern "C" fn(*mut ENetHost, *mut ENetRsNetsimStats) -> c_int;
type HostGetStats = unsafe extern "C" fn(*mut ENetHost, *mut ENetRsHostStats) -> c_int;

/// The functions enetperf calls, from one loaded library.
pub struct Library {
    pub path: PathBuf,
    pub host_create: HostCreate,
    pub host_destroy: HostDestroy,
    pub host_connect: HostConnect,
    pub host_service: HostService,
    pub host_flush: HostDestroy,
    pub packet_create: PacketCreate,
    pub packet_destroy: PacketDestroy,
    pub peer_send: PeerSend,
    pub peer_disconnect: PeerDisconnect,
    pub linked_version: LinkedVersion,
    /// enet-rs only: its retransmission counters (`enet_rs_peer_get_stats`).
    pub peer_stats: Option<PeerStats>,
    /// enet-rs only: its loss-recovery presets and the call that sets one.
    loss_recovery: Option<(LossRecoveryPreset, HostSetLossRecovery)>,
    /// enet-rs only (version 4 on): its network conditioner.
    netsim: Option<(HostSetNetsim, HostNetsimStats)>,
    /// enet-rs only: the host's counters (`enet_rs_host_get_stats`).
    host_stats: Option<HostGetStats>,
}

/// enet-rs's loss-recovery modes (`--loss-recovery`): names and the
/// header's values.
const LOSS_RECOVERY_MODES: [(&str, ENetRsLossRecoveryMode); 3] = [
    ("stock", ENetRsLossRecoveryMode::ENET_RS_LOSS_RECOVERY_STOCK),
    (
        "default",
        ENetRsLossRecoveryMode::ENET_RS_LOSS_RECOVERY_DEFAULT,
    ),
    ("fast", ENetRsLossRecoveryMode::ENET_RS_LOSS_RECOVERY_FAST),
];

impl Library {
    /// Loads the library at `path` and initializes it.
    pub fn load(path: &Path) -> Result<Library, String> {
        let name = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| format!("{}: not a usable path", path.display()))?;
        // SAFETY: a NUL-terminated path; the handle is kept for the
        // process's lifetime (never closed), so the functions stay valid.
        let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            // SAFETY: dlerror returns NULL or a C string valid until the
            // next dl call on this thread.
            let reason = unsafe { libc::dlerror() };
            let reason = if reason.is_null() {
                "unknown error".to_string()
            } else {
                // SAFETY: as above.
                unsafe { CStr::from_ptr(reason) }
                    .to_string_lossy()
                    .into_owned()
            };
            return Err(format!("cannot load {}: {reason}", path.display()));
        }
        let symbol = |name: &str| -> Result<*mut c_void, String> {
            let c_name = CString::new(name).expect("no NUL in symbol names");
            // SAFETY: a live handle and a NUL-terminated name.
            let found = unsafe { libc::dlsym(handle, c_name.as_ptr()) };
            if found.is_null() {
                Err(format!(
                    "{} has no {name}: not an ENet library",
                    path.display()
                ))
            } else {
                Ok(found)
            }
        };
        // SAFETY (every transmute below): each symbol is the ENet 1.3.17
        // function of that name, whose C signature the field's type spells.
        macro_rules! function {
            ($name:literal as $type:ty) => {
                unsafe { std::mem::transmute::<*mut c_void, $type>(symbol($name)?) }
            };
        }
        let initialize = function!("enet_initialize" as Initialize);
        let library = Library {
            path: path.to_path_buf(),
            host_create: function!("enet_host_create" as HostCreate),
            host_destroy: function!("enet_host_destroy" as HostDestroy),
            host_connect: function!("enet_host_connect" as HostConnect),
            host_service: function!("enet_host_service" as HostService),
            host_flush: function!("enet_host_flush" as HostDestroy),
            packet_create: function!("enet_packet_create" as PacketCreate),
            packet_destroy: function!("enet_packet_destroy" as PacketDestroy),
            peer_send: function!("enet_peer_send" as PeerSend),
            peer_disconnect: function!("enet_peer_disconnect" as PeerDisconnect),
            linked_version: function!("enet_linked_version" as LinkedVersion),
            peer_stats: symbol("enet_rs_peer_get_stats")
                .ok()
                // SAFETY: as above.
                .map(|found| unsafe { std::mem::transmute::<*mut c_void, PeerStats>(found) }),
            loss_recovery: symbol("enet_rs_loss_recovery_preset")
                .and_then(|preset| Ok((preset, symbol("enet_rs_host_set_loss_recovery")?)))
                .ok()
                // SAFETY: as above.
                .map(|(preset, set)| unsafe {
                    (
                        std::mem::transmute::<*mut c_void, LossRecoveryPreset>(preset),
                        std::mem::transmute::<*mut c_void, HostSetLossRecovery>(set),
                    )
                }),
            netsim: symbol("enet_rs_host_set_netsim")
                .and_then(|set| Ok((set, symbol("enet_rs_host_netsim_stats")?)))
                .ok()
                // SAFETY: as above.
                .map(|(set, stats)| unsafe {
                    (
                        std::mem::transmute::<*mut c_void, HostSetNetsim>(set),
                        std::mem::transmute::<*mut c_void, HostNetsimStats>(stats),
                    )
                }),
            host_stats: symbol("enet_rs_host_get_stats")
                .ok()
                // SAFETY: as above.
                .map(|found| unsafe { std::mem::transmute::<*mut c_void, HostGetStats>(found) }),
        };
        // SAFETY: the library's own initializer, called once.
        if unsafe { initialize() } != 0 {
            return Err(format!("{}: enet_initialize failed", path.display()));
        }
        Ok(library)
    }

    /// Gives every peer of `host` the loss-recovery mode named `mode` (one
    /// of [`LOSS_RECOVERY_MODES`]); enet-rs only.
    pub fn set_loss_recovery(&self, host: *mut ENetHost, mode: &str) -> Result<(), String> {
        let Some((preset, set)) = self.loss_recovery else {
            return Err(format!(
                "{} has no loss-recovery modes (--loss-recovery is enet-rs's)",
                self.name()
            ));
        };
        let (_, value) = LOSS_RECOVERY_MODES
            .into_iter()
            .find(|&(name, _)| name == mode)
            .ok_or_else(|| format!("no loss-recovery mode {mode:?}"))?;
        // SAFETY: all-zero settings are valid, and the preset writes them.
        let mut settings: ENetRsLossRecovery = unsafe { std::mem::zeroed() };
        // SAFETY: a writable settings struct and a mode the header lists.
        if unsafe { preset(value as c_int, &mut settings) } != 0 {
            return Err(format!("the library has no loss-recovery mode {mode:?}"));
        }
        // SAFETY: a live host and valid settings.
        if unsafe { set(host, &settings) } != 0 {
            return Err("the library refused the loss-recovery settings".into());
        }
        Ok(())
    }

    /// Gives `host` the network conditioner `spec` describes (see
    /// docs/netsim.md); enet-rs only.
    pub fn set_netsim(&self, host: *mut ENetHost, spec: &str) -> Result<(), String> {
        let Some((set, _)) = self.netsim else {
            return Err(format!(
                "{} has no network conditioner (--netsim is enet-rs's; the impairment options put a proxy in front of any library)",
                self.name()
            ));
        };
        let text = CString::new(spec).map_err(|_| "--netsim: a NUL in the spec".to_string())?;
        // SAFETY: a live host and a C string.
        if unsafe { set(host, text.as_ptr()) } != 0 {
            return Err(format!(
                "--netsim {spec:?}: the library refused it (see docs/netsim.md)"
            ));
        }
        Ok(())
    }

    /// What the network conditioner of `host` did, if it has one.
    pub fn netsim_stats(&self, host: *mut ENetHost) -> Option<ENetRsNetsimStats> {
        let (_, stats) = self.netsim?;
        let mut out = ENetRsNetsimStats::default();
        // SAFETY: a live host and a writable struct.
        (unsafe { stats(host, &mut out) } == 0).then_some(out)
    }

    /// The host's counters, if the library keeps them.
    pub fn host_stats(&self, host: *mut ENetHost) -> Option<ENetRsHostStats> {
        let get = self.host_stats?;
        // SAFETY: an all-zero struct is valid; its size says how much the
        // library may fill.
        let mut out: ENetRsHostStats = unsafe { std::mem::zeroed() };
        out.size = std::mem::size_of::<ENetRsHostStats>() as u64;
        // SAFETY: a live host and a writable struct of that size.
        (unsafe { get(host, &mut out) } == 0).then_some(out)
    }

    /// "stock ENet 1.3.17" or "enet-rs", for reports.
    pub fn name(&self) -> &'static str {
        if self.peer_stats.is_some() {
            "enet-rs"
        } else {
            "stock ENet"
        }
    }

    /// The library's version, as `enet_linked_version` packs it.
    pub fn version(&self) -> String {
        // SAFETY: a function of the loaded library, taking nothing.
        let version = unsafe { (self.linked_version)() };
        format!(
            "{}.{}.{}",
            version >> 16,
            (version >> 8) & 0xFF,
            version & 0xFF
        )
    }
}
