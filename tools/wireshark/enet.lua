-- enet.lua: a Wireshark dissector for the ENet protocol (1.3.x wire format,
-- as ENet 1.3.17 and enet-rs send it).
--
-- Install: copy this file into Wireshark's personal Lua plugins folder
-- (Help > About Wireshark > Folders > Personal Lua Plugins, usually
-- ~/.local/lib/wireshark/plugins/), or load it for one run with
-- `wireshark -X lua_script:enet.lua` / `tshark -X lua_script:enet.lua`.
-- ENet has no fixed port: pick the traffic with Decode As (UDP port ->
-- ENET), `-d udp.port==7777,enet` in tshark, or list ports in the
-- preference "ENet UDP ports". A host's checksum (CRC32) is not announced on
-- the wire, so say whether the traffic carries one with the preference
-- "Datagrams carry a checksum" (`-o enet.checksum:TRUE`).
--
-- Every multi-byte field is big-endian except the connect ID and the
-- checksum, which ENet copies as raw bytes. Compressed datagrams (range
-- coder) are flagged and their commands shown as one compressed block.

local enet = Proto("enet", "ENet Protocol")

local COMMAND_NAMES = {
    [0] = "NONE",
    [1] = "ACKNOWLEDGE",
    [2] = "CONNECT",
    [3] = "VERIFY_CONNECT",
    [4] = "DISCONNECT",
    [5] = "PING",
    [6] = "SEND_RELIABLE",
    [7] = "SEND_UNRELIABLE",
    [8] = "SEND_FRAGMENT",
    [9] = "SEND_UNSEQUENCED",
    [10] = "BANDWIDTH_LIMIT",
    [11] = "THROTTLE_CONFIGURE",
    [12] = "SEND_UNRELIABLE_FRAGMENT",
}

-- Fixed size of each command, header included (enet_protocol_command_size).
local COMMAND_SIZES = { [1] = 8, [2] = 48, [3] = 44, [4] = 8, [5] = 4, [6] = 6, [7] = 8,
    [8] = 24, [9] = 8, [10] = 12, [11] = 16, [12] = 24 }

local f = enet.fields
-- Header.
f.sent_time_flag = ProtoField.bool("enet.flags.sent_time", "Sent time present", 16, nil, 0x8000)
f.compressed = ProtoField.bool("enet.flags.compressed", "Compressed", 16, nil, 0x4000)
f.session = ProtoField.uint16("enet.session", "Session ID", base.DEC, nil, 0x3000)
f.peer_id = ProtoField.uint16("enet.peer_id", "Peer ID", base.DEC, { [0xFFF] = "none" }, 0x0FFF)
f.sent_time = ProtoField.uint16("enet.sent_time", "Sent time (ms, low 16 bits)", base.DEC)
f.checksum = ProtoField.bytes("enet.checksum", "Checksum")
f.compressed_data = ProtoField.bytes("enet.compressed_data", "Compressed commands (range coder)")
-- Command header.
f.command = ProtoField.uint8("enet.command", "Command", base.DEC, COMMAND_NAMES, 0x0F)
f.command_acknowledge = ProtoField.bool("enet.command.acknowledge", "Acknowledge (reliable)", 8, nil, 0x80)
f.command_unsequenced = ProtoField.bool("enet.command.unsequenced", "Unsequenced", 8, nil, 0x40)
f.channel = ProtoField.uint8("enet.channel", "Channel", base.DEC, { [0xFF] = "connection" })
f.reliable_sequence = ProtoField.uint16("enet.reliable_sequence", "Reliable sequence number", base.DEC)
-- ACKNOWLEDGE.
f.ack_sequence = ProtoField.uint16("enet.ack.reliable_sequence", "Acknowledged reliable sequence number", base.DEC)
f.ack_sent_time = ProtoField.uint16("enet.ack.sent_time", "Acknowledged sent time", base.DEC)
-- CONNECT and VERIFY_CONNECT.
f.outgoing_peer_id = ProtoField.uint16("enet.connect.outgoing_peer_id", "Outgoing peer ID", base.DEC)
f.incoming_session = ProtoField.uint8("enet.connect.incoming_session", "Incoming session ID", base.DEC)
f.outgoing_session = ProtoField.uint8("enet.connect.outgoing_session", "Outgoing session ID", base.DEC)
f.mtu = ProtoField.uint32("enet.connect.mtu", "MTU", base.DEC)
f.window_size = ProtoField.uint32("enet.connect.window_size", "Window size", base.DEC)
f.channel_count = ProtoField.uint32("enet.connect.channel_count", "Channel count", base.DEC)
f.connect_incoming_bandwidth = ProtoField.uint32("enet.connect.incoming_bandwidth", "Incoming bandwidth", base.DEC)
f.connect_outgoing_bandwidth = ProtoField.uint32("enet.connect.outgoing_bandwidth", "Outgoing bandwidth", base.DEC)
f.connect_throttle_interval = ProtoField.uint32("enet.connect.throttle_interval", "Packet throttle interval", base.DEC)
f.connect_throttle_acceleration = ProtoField.uint32("enet.connect.throttle_acceleration", "Packet throttle acceleration", base.DEC)
f.connect_throttle_deceleration = ProtoField.uint32("enet.connect.throttle_deceleration", "Packet throttle deceleration", base.DEC)
f.connect_id = ProtoField.bytes("enet.connect.connect_id", "Connect ID")
f.connect_data = ProtoField.uint32("enet.connect.data", "Data", base.HEX)
-- DISCONNECT.
f.disconnect_data = ProtoField.uint32("enet.disconnect.data", "Data", base.HEX)
-- Payload-carrying commands.
f.unreliable_sequence = ProtoField.uint16("enet.unreliable_sequence", "Unreliable sequence number", base.DEC)
f.unsequenced_group = ProtoField.uint16("enet.unsequenced_group", "Unsequenced group", base.DEC)
f.data_length = ProtoField.uint16("enet.data_length", "Data length", base.DEC)
f.data = ProtoField.bytes("enet.data", "Data")
-- Fragments.
f.fragment_start = ProtoField.uint16("enet.fragment.start_sequence", "Start sequence number", base.DEC)
f.fragment_count = ProtoField.uint32("enet.fragment.count", "Fragment count", base.DEC)
f.fragment_number = ProtoField.uint32("enet.fragment.number", "Fragment number", base.DEC)
f.fragment_total_length = ProtoField.uint32("enet.fragment.total_length", "Total length", base.DEC)
f.fragment_offset = ProtoField.uint32("enet.fragment.offset", "Fragment offset", base.DEC)
-- BANDWIDTH_LIMIT and THROTTLE_CONFIGURE.
f.bandwidth_incoming = ProtoField.uint32("enet.bandwidth.incoming", "Incoming bandwidth", base.DEC)
f.bandwidth_outgoing = ProtoField.uint32("enet.bandwidth.outgoing", "Outgoing bandwidth", base.DEC)
f.throttle_interval = ProtoField.uint32("enet.throttle.interval", "Packet throttle interval", base.DEC)
f.throttle_acceleration = ProtoField.uint32("enet.throttle.acceleration", "Packet throttle acceleration", base.DEC)
f.throttle_deceleration = ProtoField.uint32("enet.throttle.deceleration", "Packet throttle deceleration", base.DEC)

local truncated = ProtoExpert.new("enet.truncated", "Command truncated", expert.group.MALFORMED, expert.severity.ERROR)
local unknown = ProtoExpert.new("enet.unknown_command", "Unknown command", expert.group.MALFORMED, expert.severity.ERROR)
enet.experts = { truncated, unknown }

enet.prefs.checksum = Pref.bool("Datagrams carry a checksum", false,
    "The hosts use a checksum (enet_crc32): four checksum bytes follow the header")
enet.prefs.ports = Pref.range("ENet UDP ports", "", "UDP ports to decode as ENet", 65535)

-- The body of command `number` at `offset` (after its 4-byte header);
-- the payload length it announces, if any.
local function command_body(number, buffer, offset, tree)
    local function u16(field, at) tree:add(field, buffer(offset + at, 2)) end
    local function u32(field, at) tree:add(field, buffer(offset + at, 4)) end
    if number == 1 then
        u16(f.ack_sequence, 0); u16(f.ack_sent_time, 2)
    elseif number == 2 or number == 3 then
        u16(f.outgoing_peer_id, 0)
        tree:add(f.incoming_session, buffer(offset + 2, 1))
        tree:add(f.outgoing_session, buffer(offset + 3, 1))
        u32(f.mtu, 4); u32(f.window_size, 8); u32(f.channel_count, 12)
        u32(f.connect_incoming_bandwidth, 16); u32(f.connect_outgoing_bandwidth, 20)
        u32(f.connect_throttle_interval, 24); u32(f.connect_throttle_acceleration, 28)
        u32(f.connect_throttle_deceleration, 32)
        tree:add(f.connect_id, buffer(offset + 36, 4))
        if number == 2 then u32(f.connect_data, 40) end
    elseif number == 4 then
        u32(f.disconnect_data, 0)
    elseif number == 6 then
        u16(f.data_length, 0)
        return buffer(offset, 2):uint()
    elseif number == 7 then
        u16(f.unreliable_sequence, 0); u16(f.data_length, 2)
        return buffer(offset + 2, 2):uint()
    elseif number == 9 then
        u16(f.unsequenced_group, 0); u16(f.data_length, 2)
        return buffer(offset + 2, 2):uint()
    elseif number == 8 or number == 12 then
        u16(f.fragment_start, 0); u16(f.data_length, 2)
        u32(f.fragment_count, 4); u32(f.fragment_number, 8)
        u32(f.fragment_total_length, 12); u32(f.fragment_offset, 16)
        return buffer(offset + 2, 2):uint()
    elseif number == 10 then
        u32(f.bandwidth_incoming, 0); u32(f.bandwidth_outgoing, 4)
    elseif number == 11 then
        u32(f.throttle_interval, 0); u32(f.throttle_acceleration, 4); u32(f.throttle_deceleration, 8)
    end
    return 0
end

function enet.dissector(buffer, pinfo, tree)
    local length = buffer:len()
    if length < 2 then return 0 end
    pinfo.cols.protocol = "ENet"
    local root = tree:add(enet, buffer(), "ENet Protocol")

    local field = buffer(0, 2):uint()
    local header = root:add(buffer(0, 2), string.format("Header: peer %d, session %d",
        bit32.band(field, 0x0FFF), bit32.rshift(bit32.band(field, 0x3000), 12)))
    header:add(f.sent_time_flag, buffer(0, 2))
    header:add(f.compressed, buffer(0, 2))
    header:add(f.session, buffer(0, 2))
    header:add(f.peer_id, buffer(0, 2))
    local offset = 2
    if bit32.band(field, 0x8000) ~= 0 then
        if length < 4 then return length end
        header:add(f.sent_time, buffer(2, 2))
        offset = 4
    end
    if enet.prefs.checksum then
        if length < offset + 4 then return length end
        header:add(f.checksum, buffer(offset, 4))
        offset = offset + 4
    end

    if bit32.band(field, 0x4000) ~= 0 then
        if offset < length then
            root:add(f.compressed_data, buffer(offset))
        end
        pinfo.cols.info = "Compressed"
        return length
    end

    local names = {}
    while offset < length do
        if length - offset < 4 then
            root:add_proto_expert_info(truncated)
            break
        end
        local command = buffer(offset, 1):uint()
        local number = bit32.band(command, 0x0F)
        local size = COMMAND_SIZES[number]
        local name = COMMAND_NAMES[number] or ("UNKNOWN " .. number)
        if size == nil then
            root:add(buffer(offset), name):add_proto_expert_info(unknown)
            names[#names + 1] = name
            break
        end
        if length - offset < size then
            root:add(buffer(offset), name):add_proto_expert_info(truncated)
            names[#names + 1] = name
            break
        end
        local item = root:add(buffer(offset, size), name)
        item:add(f.command, buffer(offset, 1))
        item:add(f.command_acknowledge, buffer(offset, 1))
        item:add(f.command_unsequenced, buffer(offset, 1))
        item:add(f.channel, buffer(offset + 1, 1))
        item:add(f.reliable_sequence, buffer(offset + 2, 2))
        item:append_text(string.format(" (channel %d, reliable sequence %d)",
            buffer(offset + 1, 1):uint(), buffer(offset + 2, 2):uint()))
        local payload = command_body(number, buffer, offset + 4, item)
        offset = offset + size
        if payload > 0 then
            if length - offset < payload then
                item:add_proto_expert_info(truncated)
                names[#names + 1] = name
                break
            end
            item:add(f.data, buffer(offset, payload))
            item:set_len(size + payload)
            offset = offset + payload
        end
        names[#names + 1] = name
    end
    pinfo.cols.info = table.concat(names, ", ")
    return length
end

local udp_port = DissectorTable.get("udp.port")
udp_port:add_for_decode_as(enet)

local registered = nil
function enet.prefs_changed()
    if registered ~= nil then udp_port:remove(registered, enet) end
    registered = enet.prefs.ports
    if registered ~= nil and tostring(registered) ~= "" then udp_port:add(registered, enet) end
end
