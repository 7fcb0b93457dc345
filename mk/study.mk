# make study: the soft-modem study's tables and figures on every installed
# Debian kernel (tools/study.py --help: KERNELS, QUICK=1, JOBS, SCHEDULER,
# STUDY_OUT, STUDY_RECORD (doc/study/full: the project's own run's
# record.jsonl, kept across checkouts), STUDY_PARTS (compare phase transfer pump resmap),
# PUMP_TRANSFER_BYTES, FORCE=1 ...).  The full grid is a benchmark of hours; QUICK=1 is the
# reduced grid make check runs (tests/module/test_study.py).
.PHONY: study
study: deps venv
	@$(MAKE) --no-print-directory modules line smodemd
	$(PYTHON) tools/study.py $(if $(FORCE),--force)
