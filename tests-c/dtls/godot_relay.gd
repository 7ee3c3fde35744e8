# A UDP <-> DTLS relay on Godot 3.2's own network classes (UDPServer,
# PacketPeerUDP, DTLSServer, PacketPeerDTLS: mbedtls inside), the classes
# Godot's bundled ENet runs over when DTLS is on. One DTLS session per remote
# address; every datagram is one DTLS record, both ways, as in Godot's ENet.
#
#   godot3-server --no-window --script godot_relay.gd -- \
#       --mode dtls-server --listen PORT --target HOST:PORT --key KEY.pem --cert CERT.pem
#   godot3-server --no-window --script godot_relay.gd -- \
#       --mode dtls-client --listen PORT --target HOST:PORT \
#       (--ca CERT.pem --hostname NAME | --no-verify)
#
# dtls-server: accepts DTLS (cookie exchange first) on --listen; for each
#   session, forwards its application data as plain UDP datagrams from a
#   fresh local socket to --target, and what comes back to that socket into
#   the session.
# dtls-client: accepts plain UDP on --listen; for each source address, opens
#   a DTLS client session to --target from a fresh local socket (verifying
#   the server's certificate against --ca and --hostname unless --no-verify),
#   and forwards both ways. Datagrams that arrive during the handshake are
#   held (at most --queue of them) and sent once it is done.
#
# Options: --bind ADDR (default 127.0.0.1) is where --listen binds.
#   --listen 0 picks a free port (Godot 3.2 cannot say which port the system
#   gave, and binds with SO_REUSEADDR, so the relay reads /proc/net/udp and
#   chooses a port no socket holds). --poll-us N: sleep when idle (default
#   1000). --queue N (default 256).
# stdout: "PORT n" once listening. stderr: one line per session event
#   ("godot_relay[MODE]: ..."). Runs until killed; exit status 2 on bad usage
#   or a set-up failure.
extends SceneTree

var mode = ""
var bind_address = "127.0.0.1"
var listen_port = -1
var target_host = ""
var target_port = 0
var key_path = ""
var cert_path = ""
var ca_path = ""
var hostname = ""
var verify = true
var poll_usec = 1000
var queue_limit = 256

var server = UDPServer.new()
var dtls_server = null
var ca_cert = null
var sessions = {}
var started_ms = 0


func log_line(text):
	printerr("godot_relay[%s] %.3f s: %s" % [mode, (OS.get_ticks_msec() - started_ms) / 1000.0, text])


var failure = ""


# Records the first set-up failure; _init then quits with status 2.
func die(text):
	if failure == "":
		failure = text


func parse_args():
	var args = Array(OS.get_cmdline_args())
	var at = args.find("--")
	if at < 0:
		die("no arguments after --")
		return
	var i = at + 1
	while i < args.size():
		var a = args[i]
		if a == "--no-verify":
			verify = false
			i += 1
			continue
		if i + 1 >= args.size():
			die(a + " needs a value (or is unknown)")
			return
		var v = args[i + 1]
		match a:
			"--mode": mode = v
			"--bind": bind_address = v
			"--listen": listen_port = int(v)
			"--target":
				var colon = v.find_last(":")
				if colon < 1:
					die("--target takes HOST:PORT")
				target_host = v.substr(0, colon)
				target_port = int(v.substr(colon + 1, v.length() - colon - 1))
			"--key": key_path = v
			"--cert": cert_path = v
			"--ca": ca_path = v
			"--hostname": hostname = v
			"--poll-us": poll_usec = int(v)
			"--queue": queue_limit = int(v)
			_:
				die("unknown option " + a)
				return
		i += 2
	if mode != "dtls-server" and mode != "dtls-client":
		die("--mode takes dtls-server or dtls-client")
	if listen_port < 0 or listen_port > 65535 or target_port < 1 or target_port > 65535:
		die("give --listen PORT (0: pick one) and --target HOST:PORT")
	if mode == "dtls-server" and (key_path == "" or cert_path == ""):
		die("dtls-server needs --key and --cert")
	if mode == "dtls-client" and verify and (ca_path == "" or hostname == ""):
		die("dtls-client needs --ca and --hostname, or --no-verify")


# Local UDP ports in use, from /proc/net/udp and udp6 (column 2 is ADDR:PORT in hex).
func ports_in_use():
	var used = {}
	for path in ["/proc/net/udp", "/proc/net/udp6"]:
		var f = File.new()
		if f.open(path, File.READ) != OK:
			continue
		f.get_line()
		while not f.eof_reached():
			var fields = f.get_line().strip_edges().split(" ", false)
			if fields.size() > 1:
				var local = fields[1]
				used[("0x" + local.substr(local.find_last(":") + 1, 4)).hex_to_int()] = true
		f.close()
	return used


func start_listening():
	if listen_port != 0:
		var err = server.listen(listen_port, bind_address)
		if err != OK:
			die("cannot listen on %s:%d (error %d)" % [bind_address, listen_port, err])
		return
	# Below Linux's ephemeral range (32768-60999), so that no client socket
	# is handed the port later.
	randomize()
	for attempt in range(200):
		var port = 20000 + randi() % 12000
		if ports_in_use().has(port):
			continue
		if server.listen(port, bind_address) == OK:
			listen_port = port
			return
	die("found no free port")


func load_credentials():
	if mode == "dtls-server":
		var key = CryptoKey.new()
		var cert = X509Certificate.new()
		if key.load(key_path) != OK:
			die("cannot load key " + key_path)
			return
		if cert.load(cert_path) != OK:
			die("cannot load certificate " + cert_path)
			return
		dtls_server = DTLSServer.new()
		if dtls_server.setup(key, cert) != OK:
			die("DTLSServer.setup failed")
	elif verify:
		ca_cert = X509Certificate.new()
		if ca_cert.load(ca_path) != OK:
			die("cannot load CA certificate " + ca_path)


func status_name(status):
	match status:
		PacketPeerDTLS.STATUS_DISCONNECTED: return "disconnected"
		PacketPeerDTLS.STATUS_HANDSHAKING: return "handshaking"
		PacketPeerDTLS.STATUS_CONNECTED: return "connected"
		PacketPeerDTLS.STATUS_ERROR: return "error"
		PacketPeerDTLS.STATUS_ERROR_HOSTNAME_MISMATCH: return "hostname mismatch"
	return str(status)


func connect_plain():
	var out = PacketPeerUDP.new()
	var err = out.connect_to_host(target_host, target_port)
	if err != OK:
		log_line("cannot open a UDP socket to %s:%d (error %d)" % [target_host, target_port, err])
		return null
	return out


# Moves every application record the session has into sink, as one datagram
# each. carrier is the session's UDP peer: while it holds datagrams, poll()
# has more records (or handshake and alert records) to read.
func dtls_to_plain(s, sink):
	var dtls = s.dtls
	var moved = 0
	for i in range(100000):
		dtls.poll()
		if dtls.get_status() != PacketPeerDTLS.STATUS_CONNECTED:
			break
		if dtls.get_available_packet_count() > 0:
			var data = dtls.get_packet()
			if dtls.get_packet_error() == OK and data.size() > 0:
				sink.put_packet(data)
				moved += 1
		elif s.carrier.get_available_packet_count() <= 0:
			break
	return moved


func plain_to_dtls(source, dtls):
	var moved = 0
	while source.get_available_packet_count() > 0:
		var data = source.get_packet()
		if source.get_packet_error() == OK and data.size() > 0:
			dtls.put_packet(data)
			moved += 1
	return moved


func accept_new():
	var moved = 0
	while server.is_connection_available():
		var udp = server.take_connection()
		var key = "%s:%d" % [udp.get_packet_ip(), udp.get_packet_port()]
		moved += 1
		if mode == "dtls-server":
			var dtls = dtls_server.take_connection(udp)
			if dtls.get_status() != PacketPeerDTLS.STATUS_HANDSHAKING:
				# Normally the first half of the cookie exchange (the hello is
				# answered with a cookie request); a hello refused for another
				# reason has Godot's "TLS handshake error" on stderr too.
				log_line("%s: no session yet (ClientHello without a valid cookie, or refused)" % key)
				continue
			sessions[key] = {"key": key, "dtls": dtls, "carrier": udp, "plain": null, "since": OS.get_ticks_msec()}
			log_line("%s: handshake started" % key)
		else:
			var out = connect_plain()
			if out == null:
				continue
			var dtls = PacketPeerDTLS.new()
			var err = dtls.connect_to_peer(out, verify, hostname, ca_cert)
			var s = {"key": key, "dtls": dtls, "carrier": out, "plain": udp, "queue": [], "since": OS.get_ticks_msec()}
			sessions[key] = s
			log_line("%s: handshake started to %s:%d (verify %s%s)" % [key, target_host, target_port, "on" if verify else "off", ", host name " + hostname if verify else ""])
			if err != OK:
				log_line("%s: connect_to_peer failed (error %d, %s)" % [key, err, status_name(dtls.get_status())])
	return moved


func end_session(s, why):
	log_line("%s: session ended: %s" % [s.key, why])
	if s.dtls.get_status() == PacketPeerDTLS.STATUS_CONNECTED:
		s.dtls.disconnect_from_peer()
	if s.plain != null:
		s.plain.close()
	s.carrier.close()
	sessions.erase(s.key)


func service_session(s):
	var dtls = s.dtls
	var moved = 0
	dtls.poll()
	var status = dtls.get_status()
	if status == PacketPeerDTLS.STATUS_HANDSHAKING:
		if mode == "dtls-client":
			# Plain datagrams that arrive during the handshake wait here.
			while s.plain.get_available_packet_count() > 0:
				var data = s.plain.get_packet()
				if data.size() > 0:
					s.queue.append(data)
					moved += 1
			while s.queue.size() > queue_limit:
				s.queue.pop_front()
		return moved
	if status != PacketPeerDTLS.STATUS_CONNECTED:
		end_session(s, status_name(status))
		return moved + 1
	if not s.has("ready"):
		s["ready"] = true
		log_line("%s: handshake done in %d ms" % [s.key, OS.get_ticks_msec() - s.since])
		if mode == "dtls-server":
			s.plain = connect_plain()
			if s.plain == null:
				end_session(s, "no UDP socket to the target")
				return moved + 1
		if mode == "dtls-client":
			for data in s.queue:
				dtls.put_packet(data)
			s.queue.clear()
	moved += dtls_to_plain(s, s.plain)
	if dtls.get_status() == PacketPeerDTLS.STATUS_CONNECTED:
		moved += plain_to_dtls(s.plain, dtls)
	if dtls.get_status() != PacketPeerDTLS.STATUS_CONNECTED:
		end_session(s, status_name(dtls.get_status()))
	return moved


func _init():
	started_ms = OS.get_ticks_msec()
	parse_args()
	if failure == "":
		load_credentials()
	if failure == "":
		start_listening()
	if failure != "":
		printerr("godot_relay: " + failure)
		quit(2)
		return
	print("PORT %d" % listen_port)
	log_line("listening on %s:%d, target %s:%d" % [bind_address, listen_port, target_host, target_port])
	# The relay's own loop: Godot's main loop is never entered. When a pass
	# moved nothing, sleep poll_usec.
	while true:
		server.poll()
		var moved = accept_new()
		for key in sessions.keys():
			if sessions.has(key):
				moved += service_session(sessions[key])
		if moved == 0:
			OS.delay_usec(poll_usec)
