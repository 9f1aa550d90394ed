# The server's systemd user units (systemd/, issue 42): make
# install-systemd writes them under DESTDIR, the service naming the
# server where it is installed (BINDIR, never DESTDIR), the socket where
# the tools look under XDG_RUNTIME_DIR (%t/gpufilt/server: sockpath_test
# checks the library's side), 0600 in a directory of 0700;
# systemd-analyze, where installed, finds nothing to say of them; make
# uninstall removes them.  (t_habits checks them in a whole make
# install.)  Sourced by tests/run.sh.
U=$TMP/units
mkdir -p "$U"
if ! command -v make >/dev/null 2>&1; then
	skip units/install "no make"
else
	units_make() {
		(unset MAKEFLAGS MFLAGS MAKELEVEL; make -C "$ROOT" --no-print-directory \
		    "$@") >"$U/make.log" 2>&1
	}
	D=$U/dest
	svc=$D/opt/gf/lib/systemd/user/gpufiltd.service
	sock=$D/opt/gf/lib/systemd/user/gpufiltd.socket
	units_make install-systemd DESTDIR="$D" PREFIX=/opt/gf
	st=$?
	why="status $st: $(tail -n 3 "$U/make.log"); $(grep '^ExecStart' "$svc" 2>&1)"
	check units/service-names-bindir eval '[ $st = 0 ] &&
	    [ "$(grep "^ExecStart=" "$svc")" = "ExecStart=/opt/gf/bin/gpufiltd -f" ] &&
	    ! grep -q "@[A-Z]*@" "$svc"'
	why="$(grep -v '^#' "$sock" 2>&1 | tr '\n' ' ')"
	check units/socket eval 'grep -qx "ListenSequentialPacket=%t/gpufilt/server" "$sock" &&
	    grep -qx "SocketMode=0600" "$sock" && grep -qx "DirectoryMode=0700" "$sock" &&
	    [ "$(grep -c "^Listen" "$sock")" = 1 ]'
	# No restart loop on the GPUs; the service comes with its socket.
	why="$(grep -v '^#' "$svc" 2>&1 | tr '\n' ' ')"
	check units/service eval 'grep -qx "Restart=no" "$svc" &&
	    grep -qx "Requires=gpufiltd.socket" "$svc" && grep -qx "Also=gpufiltd.socket" "$svc"'

	# systemd's own reading of them, with the built server (or, before
	# it is built, a stand-in of its name: verify wants the program).
	if ! command -v systemd-analyze >/dev/null 2>&1; then
		skip units/systemd-verify "systemd-analyze is not installed"
	else
		bindir=$BIN
		if [ ! -x "$BIN/gpufiltd" ]; then
			bindir=$U/stand-in
			mkdir -p "$bindir" && printf '#!/bin/sh\nexit 0\n' >"$bindir/gpufiltd" &&
			    chmod +x "$bindir/gpufiltd"
		fi
		units_make install-systemd PREFIX="$U/verify" BINDIR="$bindir"
		(cd "$U/verify/lib/systemd/user" &&
		    systemd-analyze verify --man=no ./gpufiltd.socket ./gpufiltd.service) \
		    >"$U/verify.log" 2>&1
		st=$?
		why="status $st: $(head -c 400 "$U/verify.log")"
		check units/systemd-verify eval '[ $st = 0 ] && [ ! -s "$U/verify.log" ]'
	fi

	units_make uninstall DESTDIR="$D" PREFIX=/opt/gf
	st=$?
	why="status $st, left: $(cd "$D" && find . | tr '\n' ' ')"
	check units/uninstall eval '[ $st = 0 ] && [ -z "$(find "$D" -type f)" ] &&
	    [ ! -d "$D/opt/gf/lib" ]'
fi
