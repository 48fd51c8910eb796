"""What one frame written to a client costs the writer in the kernel alone, on this machine.

The server writes four frames for every action, each with its own ``send`` on a loopback TCP
socket whose reader (the load benchmark's client) runs on the other core.  On loopback the
sender's system call also runs the receiver's side of TCP and wakes the reader's thread, and
in a virtual machine a wake-up of an idle core is an exit to the host: that cost is the
server's, whatever Python does around it.  This prints the CPU time of such a ``send`` (a
frame of ``--size`` bytes), with the reader busy (frames back to back) and with the reader
idle between frames (as at one action per table a second).

    .venv/bin/python -m benchmarks.loopback [--size 1500] [--frames 20000]
"""

from __future__ import annotations

import argparse
import os
import select
import socket
import threading
import time


def _reader(port: int, cpus: set[int]) -> None:
    """Read everything until the writer closes: a client waiting in epoll, like an event loop."""
    if cpus:
        os.sched_setaffinity(0, cpus)
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        poll = select.epoll()
        poll.register(sock.fileno(), select.EPOLLIN)
        while True:
            poll.poll()
            if not sock.recv(1 << 20):
                return


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1500, help="bytes a frame")
    parser.add_argument("--frames", type=int, default=20000, help="frames each way of sending")
    args = parser.parse_args()

    cores = sorted(os.sched_getaffinity(0))
    writer_core, reader_cores = {cores[0]}, set(cores[1:])
    os.sched_setaffinity(0, writer_core)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        thread = threading.Thread(target=_reader, args=(port, reader_cores), daemon=True)
        thread.start()
        sock, _ = listener.accept()
    frame = b"x" * args.size
    with sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        start = time.thread_time()
        for _ in range(args.frames):
            sock.send(frame)
        busy = (time.thread_time() - start) / args.frames
        idle = 0.0
        for _ in range(args.frames // 4):
            _spin(0.0005)  # the reader goes back to waiting
            start = time.thread_time()
            sock.send(frame)
            idle += time.thread_time() - start
        idle /= args.frames // 4
    thread.join(10)
    where = f"writer on core {cores[0]}, reader on {sorted(reader_cores) or 'the same core'}"
    print(f"loopback TCP send of {args.size} bytes ({where}), CPU time of the writer's thread:")
    print(f"  frames back to back (the reader busy): {busy * 1e6:.1f} us a send")
    print(f"  0.5 ms between frames (the reader idle, woken for each): {idle * 1e6:.1f} us a send")


if __name__ == "__main__":
    main()
