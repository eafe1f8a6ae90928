#!/usr/bin/python3
"""A real gRPC ProfilerService process for xtop's capture tests.

It implements the contract of the upstream server that
jax.profiler.start_server(port) runs (profiler_service_impl.cc): Profile
starts a session (only one at a time per process: a second one fails with
INTERNAL), sleeps for opts.duration_ms or until Terminate(session_id)
arrives or the client cancels, then either puts the XSpace in the response
(when the request sets emit_xspace and --mode allows it) or writes it on
its own filesystem as <repository_root>/<session_id>/<host>.xplane.pb,
':' in the host replaced by '_'. `empty_trace` is set when there is
nothing to return.

The XSpace it "captures" is a recorded real profile (--xspace FILE).

Usage: fake_profiler_server.py --xspace FILE [--mode auto|file|emit]
                               [--empty] [--port N]
Prints "PORT <n>" on stdout once it listens (on 127.0.0.1).
Only Debian packages: python3-grpcio, python3-protobuf, protoc.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent import futures

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_pb2():
    out = tempfile.mkdtemp(prefix="xtop-pb2-")
    subprocess.run(["protoc", "--python_out=" + out, "-I", os.path.join(REPO, "proto"),
                    os.path.join(REPO, "proto", "profiler_options.proto"),
                    os.path.join(REPO, "proto", "profiler_service.proto")], check=True)
    sys.path.insert(0, out)
    import profiler_service_pb2  # noqa: E402
    return profiler_service_pb2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xspace", required=True)
    ap.add_argument("--mode", default="auto", choices=["auto", "file", "emit"])
    ap.add_argument("--empty", action="store_true")
    ap.add_argument("--hang", action="store_true",
                    help="never answer Profile (for deadline tests)")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()

    import grpc
    pb = load_pb2()
    data = open(args.xspace, "rb").read()
    lock = threading.Lock()
    state = {"active": None, "terminated": set()}

    def profile(req, ctx):
        with lock:
            if state["active"] is not None:
                ctx.abort(grpc.StatusCode.INTERNAL,
                          "Failed to start profiler session: another profiling session is active")
            state["active"] = req.session_id
        try:
            dur = req.opts.duration_ms or req.duration_ms
            if args.hang:
                dur = 3600 * 1000
            end = time.monotonic() + dur / 1000.0
            while time.monotonic() < end:
                if not ctx.is_active():
                    return pb.ProfileResponse()
                with lock:
                    if req.session_id in state["terminated"]:
                        break
                time.sleep(0.001)
            resp = pb.ProfileResponse()
            if args.empty:
                resp.empty_trace = True
                return resp
            if req.emit_xspace and args.mode in ("auto", "emit"):
                resp.xspace = data
                return resp
            if args.mode == "emit":
                resp.xspace = data
                return resp
            host = req.host_name
            cfg = req.opts.advanced_configuration
            if "override_hostname" in cfg and cfg["override_hostname"].string_value:
                host = cfg["override_hostname"].string_value
            d = os.path.join(req.repository_root, req.session_id)
            os.makedirs(d, exist_ok=True)
            path = os.path.join(d, host.replace(":", "_") + ".xplane.pb")
            with open(path + ".tmp", "wb") as f:
                f.write(data)
            os.rename(path + ".tmp", path)
            return resp
        finally:
            with lock:
                state["active"] = None

    def terminate(req, ctx):
        with lock:
            state["terminated"].add(req.session_id)
        return pb.TerminateResponse()

    handlers = {
        "Profile": grpc.unary_unary_rpc_method_handler(
            profile, request_deserializer=pb.ProfileRequest.FromString,
            response_serializer=pb.ProfileResponse.SerializeToString),
        "Terminate": grpc.unary_unary_rpc_method_handler(
            terminate, request_deserializer=pb.TerminateRequest.FromString,
            response_serializer=pb.TerminateResponse.SerializeToString),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8),
                         options=[("grpc.max_send_message_length", -1)])
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("tensorflow.ProfilerService", handlers),))
    port = server.add_insecure_port("127.0.0.1:%d" % args.port)
    server.start()
    print("PORT %d" % port, flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
