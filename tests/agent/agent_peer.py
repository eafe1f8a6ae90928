#!/usr/bin/python3
"""A raw client (or impostor) of the xtop agent's socket for the tests.

Speaks src/agent/agent_proto.h by hand, to do what xtop never does:

  agent_peer.py status SOCK        STATUS; prints "OK|ERROR|CLOSED <first line>"
  agent_peer.py state SOCK         STATUS; prints the state (idle, capturing, stopped)
  agent_peer.py half-header SOCK   8 bytes of a header, then closes
  agent_peer.py short-payload SOCK a header announcing 1000 bytes, 10 of them, closes
  agent_peer.py start-close SOCK   START (ProfileOptions version=1), reads the reply, closes
  agent_peer.py bad-magic SOCK     a header that is not the protocol; prints the reply
  agent_peer.py listen SOCK        listens at SOCK (a foreign socket), prints READY, waits
Only the standard library.
"""
import os
import socket
import struct
import sys
import time

MAGIC = 0x706F7478
TYPES = {0x81: "OK", 0x82: "ERROR", 0x83: "XSPACE"}


def hdr(typ, n, magic=MAGIC, version=1):
    return struct.pack("<IHHQ", magic, version, typ, n)


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    return s


def read_reply(s, key=None):
    buf = b""
    try:
        while len(buf) < 16:
            c = s.recv(16 - len(buf))
            if not c:
                return "CLOSED"
            buf += c
        magic, ver, typ, n = struct.unpack("<IHHQ", buf)
        body = b""
        while len(body) < n:
            c = s.recv(n - len(body))
            if not c:
                return "CLOSED"
            body += c
    except (ConnectionResetError, socket.timeout) as e:
        return "CLOSED " + type(e).__name__
    text = body.decode("utf-8", "replace").splitlines()
    if key:
        return "".join(l.split("=", 1)[1] for l in text if l.startswith(key + "="))
    return "%s %s" % (TYPES.get(typ, str(typ)), text[0] if text else "")


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "listen":
        if os.path.exists(path):
            os.unlink(path)
        ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ls.bind(path)
        os.chmod(path, 0o600)
        ls.listen(4)
        print("READY", flush=True)
        conns = []
        while True:
            c, _ = ls.accept()
            conns.append(c)  # says nothing: an impostor
    s = connect(path)
    if mode == "status":
        try:
            s.sendall(hdr(1, 0))
        except BrokenPipeError:
            pass  # refused at once: the reply may still be there to read
        print(read_reply(s))
    elif mode == "state":
        s.sendall(hdr(1, 0))
        print(read_reply(s, "state"))
    elif mode == "half-header":
        s.sendall(hdr(1, 0)[:8])
        time.sleep(0.2)
    elif mode == "short-payload":
        s.sendall(hdr(2, 1000) + b"\0" * 10)
        time.sleep(0.2)
    elif mode == "start-close":
        opts = b"\x28\x01"  # ProfileOptions { version: 1 }
        s.sendall(hdr(2, len(opts)) + opts)
        print(read_reply(s))
    elif mode == "bad-magic":
        s.sendall(hdr(1, 0, magic=0x12345678))
        print(read_reply(s))
    s.close()


if __name__ == "__main__":
    main()
