# make lab-worker SCHEDULER=tcp://host:8786 JOBS=<cores>: this machine joins
# a study's Dask scheduler as JOBS workers, once its lab identity (commit,
# QEMU, kernel images) matches the coordinator's (tools/lab/worker.py).
# SHARED_FS=0: a machine without the coordinator's files (no builds, no
# kernels needed): every piece runs from its kernel's bundle, fetched once
# into ~/.cache/smodem/bundles (doc/lab-cluster.md).  WAIT_S=<s>: wait that
# long for a study to publish its identity instead of refusing at once.
.PHONY: lab-worker
lab-worker: deps venv
	$(PYTHON) tools/lab/worker.py --jobs $(JOBS) $(if $(SCHEDULER),--scheduler $(SCHEDULER)) \
		$(if $(SHARED_FS),--shared-fs $(SHARED_FS)) $(if $(WAIT_S),--wait $(WAIT_S))
