# Guest side of tests/install/test_install.py (busybox sh, root): the
# module DKMS built in the clean chroot, loaded once on the AC'97.  Raw
# results in /share/results for the host to judge.
set -u
K=/opt/smodem/smodem.ko
R=/share/results
mkdir -p $R

echo "[guest] install checks on $(uname -r)"
dmesg -c > /dev/null
# busybox modinfo reads modules.dep before it looks at a file it is given;
# the lab's initramfs has none
dep=/lib/modules/$(uname -r)/modules.dep
[ -e "$dep" ] || { mkdir -p "${dep%/*}" && : > "$dep"; }
modinfo $K > $R/modinfo.txt 2>&1
echo $? > $R/modinfo.rc
insmod $K
echo $? > $R/insmod.rc
# the tty node comes with the device, from devtmpfs
i=0
while [ ! -c /dev/ttySM0 ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ -c /dev/ttySM0 ]; then echo yes; else echo no; fi > $R/ttySM0
cat /sys/module/smodem/version > $R/version 2>&1
ls /sys/module/smodem/parameters > $R/parameters 2>&1
lsmod > $R/lsmod.txt
rmmod smodem
echo $? > $R/rmmod.rc
lsmod | grep -c '^smodem' > $R/loaded-after
dmesg > $R/dmesg.txt
