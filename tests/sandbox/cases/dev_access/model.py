# Reach host devices.
import os

report = [f"dev has {sorted(os.listdir('/dev'))}"]
for dev in ["/dev/mem", "/dev/kmem", "/dev/port", "/dev/kmsg", "/dev/sda", "/dev/vda", "/dev/nvme0n1",
            "/dev/fuse", "/dev/kvm", "/dev/net/tun", "/dev/loop0"]:
    try:
        fd = os.open(dev, os.O_RDONLY)
        os.close(fd)
        report.append(f"BREACH: opened {dev}")
    except OSError as e:
        report.append(f"{dev}: {e.__class__.__name__}")
raise RuntimeError("; ".join(report))
