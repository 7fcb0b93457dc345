# make lab-worker SCHEDULER=tcp://host:8786 JOBS=<cores>: this machine joins
# a study's Dask scheduler as JOBS workers, once its lab identity (commit,
# QEMU, kernel images) matches the coordinator's (tools/lab/worker.py).
.PHONY: lab-worker
lab-worker: deps venv
	$(PYTHON) tools/lab/worker.py --jobs $(JOBS) $(if $(SCHEDULER),--scheduler $(SCHEDULER))
