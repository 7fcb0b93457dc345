"""smlab: the smodem guest lab (QEMU guests, JACK, comparison runs)."""
