#!/usr/bin/env python3
# clients.py: hostile and probing HTTP clients of the export scenarios (loopback only, bounded
# in count and time): slowloris, non-reader, and the probe scrape that must keep working.
#
#   clients.py slowloris PORT N SECONDS [UID]   N connections trickling header lines, never done
#   clients.py nonreader PORT N SECONDS [UID]   N connections asking for /metrics, never reading
#   clients.py probe PORT SECONDS [BUDGET]      a scrape every 0.2 s, each due within BUDGET s (1)
#   clients.py garbage PORT N                   N malformed requests, one after the other
#
# The attackers print "ready" once their N connections were opened, keep them (opening a new
# one when the server closes one) until SECONDS pass, then print what the server did: how many
# it closed and the longest any was held. UID: drop to it first (its sockets are owned by it).
import os
import select
import socket
import sys
import time

HOST = "127.0.0.1"


def drop(uid):
    if uid is not None:
        os.setgid(uid)
        os.setuid(uid)


def connect(port, rcvbuf=None):
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(2)
    s.connect((HOST, port))
    s.setblocking(False)
    return s


def attack(mode, port, n, seconds, uid):
    drop(uid)
    end = time.monotonic() + seconds
    conns = {}  # socket -> (opened, next trickle)
    closed = 0
    longest = 0.0
    refused = 0

    def open_one():
        nonlocal refused
        try:
            s = connect(port, 4096 if mode == "nonreader" else None)
            if mode == "nonreader":
                s.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            else:
                s.send(b"GET /metrics HTTP/1.1\r\n")
            conns[s] = [time.monotonic(), time.monotonic() + 1]
        except OSError:
            refused += 1
            time.sleep(0.05)

    while len(conns) < n and time.monotonic() < end:
        open_one()
    print("ready", flush=True)
    while time.monotonic() < end:
        now = time.monotonic()
        for s, st in list(conns.items()):
            if mode == "slowloris" and now >= st[1]:
                try:
                    s.send(b"X-Trickle: %d\r\n" % int(now))
                except OSError:
                    pass
                st[1] = now + 1
        # a closed connection reads as EOF (the slowloris gets no answer; the non-reader's
        # answer stays unread in its small buffer until the server gives up and resets it)
        r, _, x = select.select(list(conns), [], list(conns), 0.2)
        for s in set(r) | set(x):
            gone = False
            if mode == "slowloris":
                try:
                    gone = s.recv(65536) == b""
                except BlockingIOError:
                    pass
                except OSError:
                    gone = True
            else:
                try:
                    # peek only: reading would drain the answer the server holds
                    gone = s.recv(1, socket.MSG_PEEK) == b""
                except BlockingIOError:
                    pass
                except OSError:
                    gone = True
            if gone:
                longest = max(longest, time.monotonic() - conns[s][0])
                closed += 1
                s.close()
                del conns[s]
        if mode == "nonreader":
            # a reset shows as an error on send too
            for s in list(conns):
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    longest = max(longest, time.monotonic() - conns[s][0])
                    closed += 1
                    s.close()
                    del conns[s]
        # at most 8 new connections each 20 ms: a bounded load on this shared machine
        for _ in range(8):
            if len(conns) >= n or time.monotonic() >= end:
                break
            open_one()
        time.sleep(0.02)
    for s in conns:
        s.close()
    print("closed %d refused %d longest %.1f" % (closed, refused, longest), flush=True)


def probe(port, seconds, budget=1.0):
    end = time.monotonic() + seconds
    ok = bad = 0
    worst = 0.0
    last = ""
    while time.monotonic() < end:
        t0 = time.monotonic()
        try:
            s = socket.create_connection((HOST, port), timeout=budget)
            s.settimeout(max(0.01, budget - (time.monotonic() - t0)))
            s.sendall(b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n")
            data = b""
            while True:
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                data += chunk
                if time.monotonic() - t0 > budget:
                    raise TimeoutError("answer not complete within %.2f s" % budget)
            s.close()
            head, _, body = data.partition(b"\r\n\r\n")
            status = head.split(b"\r\n")[0]
            if b" 200 " not in status + b" ":
                raise ValueError("status %r" % status)
            length = [line.split(b":", 1)[1].strip() for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:")]
            if length and int(length[0]) != len(body):
                raise ValueError("%d of %s bytes" % (len(body), length[0]))
            if b"\nmemcgctl_" not in body:
                raise ValueError("no samples")
            ok += 1
        except (OSError, ValueError) as e:
            bad += 1
            last = "%s" % e
        dt = time.monotonic() - t0
        worst = max(worst, dt)
        if bad:
            break
        time.sleep(max(0, 0.2 - dt))
    print("probe ok %d failed %d worst %.3f s %s" % (ok, bad, worst, last), flush=True)
    return 1 if bad or not ok else 0


def garbage(port, n):
    kinds = [b"GET /metrics HTTP/1.1\r\nBad header without colon\r\n\r\n",
             b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n",
             b"GET /metrics HTTP/7.9\r\n\r\n",
             b"\x00\x01\x02 / HTTP/1.1\r\n\r\n"]
    n = min(n, 5000)
    i = 0
    while i < n:  # 32 at a time: libmicrohttpd answers a malformed request at its next round
        batch = []
        for _ in range(min(32, n - i)):
            try:
                s = socket.create_connection((HOST, port), timeout=2)
                s.sendall(kinds[i % len(kinds)])
                batch.append(s)
            except OSError:
                pass
            i += 1
        end = time.monotonic() + 3
        while batch and time.monotonic() < end:
            r, _, _ = select.select(batch, [], [], 0.5)
            for s in r:
                try:
                    s.recv(4096)
                except OSError:
                    pass
                s.close()
                batch.remove(s)
        for s in batch:
            s.close()
    print("sent %d" % n, flush=True)


def main():
    mode = sys.argv[1]
    port = int(sys.argv[2])
    if mode == "garbage":
        garbage(port, int(sys.argv[3]))
        return
    if mode == "probe":
        sys.exit(probe(port, float(sys.argv[3]),
                       float(sys.argv[4]) if len(sys.argv) > 4 else 1.0))
    n = min(int(sys.argv[3]), 256)
    seconds = min(float(sys.argv[4]), 60)
    uid = int(sys.argv[5]) if len(sys.argv) > 5 else None
    attack(mode, port, n, seconds, uid)


main()
