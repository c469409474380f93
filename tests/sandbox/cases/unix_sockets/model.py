# Talk to host services over unix sockets (PostgreSQL, Redis, Docker, systemd) and abstract sockets.
import glob
import socket

report = []
paths = ["/var/run/postgresql/.s.PGSQL.5432", "/run/postgresql/.s.PGSQL.5432", "/tmp/.s.PGSQL.5432",
         "/var/run/redis/redis.sock", "/var/run/docker.sock", "/run/systemd/private"]
paths += glob.glob("/run/**/*.sock", recursive=True) + glob.glob("/tmp/**/*.sock", recursive=True)
for path in paths + ["\0/tmp/.X11-unix/X0", "\0dbus"]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(1)
    try:
        s.connect(path)
        report.append(f"BREACH: connected {path!r}")
    except OSError as e:
        report.append(f"{path!r}: {e.__class__.__name__}")
    finally:
        s.close()
raise RuntimeError("; ".join(report))
