# Start threads until something stops us.
import threading
import time

threads = []
while True:
    t = threading.Thread(target=time.sleep, args=(3600,), daemon=True)
    t.start()
    threads.append(t)
