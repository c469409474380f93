"""The environment a sandboxed run is started with: the launcher protocol between the trusted side and
the processes inside the sandbox.

These variables are not settings. The trusted side (app/sandbox/bwrap_command.py, subprocess_runner.py)
writes them into the environment of each run it starts, and the processes inside the sandbox read them
from os.environ, because nothing of the app is visible in there: the in-sandbox launcher.py and
standby.py (this file is bound next to them, stdlib only), and the harness they start
(app/engine/<interface>/harness/, app/engine/scratch_harness/), which reads them by name.

  DOJO_CANDIDATE_DIR  read-only directory with the candidate's files (model.py, data.py, ...)
  DOJO_HARNESS_DIR    read-only directory with the trusted harness code and data (entry: main.py)
  DOJO_INPUT          read-only JSON file: the job's input (what to measure, configs)
  DOJO_OUT            writable directory; the harness writes result.json there
  DOJO_PROGRESS_FD    optional: a pipe for progress lines (JSON, one per line; see app/sandbox/progress.py)
  DOJO_AGENT_FDS      "IN,OUT": the agent's ends of the channel to the judge, which runs outside the
                      sandbox (app/sandbox/judge_process.py); a harness with a judge answers it and
                      writes no result of its own

The working directory is a private, writable scratch directory. The runner starts
`python -I -B $DOJO_HARNESS_DIR/main.py` and reads back $DOJO_OUT/result.json.
"""

CANDIDATE_DIR_VAR = "DOJO_CANDIDATE_DIR"
HARNESS_DIR_VAR = "DOJO_HARNESS_DIR"
INPUT_VAR = "DOJO_INPUT"
OUT_VAR = "DOJO_OUT"
PROGRESS_FD_VAR = "DOJO_PROGRESS_FD"
AGENT_FDS_VAR = "DOJO_AGENT_FDS"
