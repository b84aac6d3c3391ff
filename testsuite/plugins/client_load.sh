#!/bin/sh
# priority_fairway.so is also loaded by client commands: sshare computes its
# classic FairShare column with priority_p_calc_fs_factor() from the plugin
# named by slurm.conf.  Load it as they do (libslurmfull global, lazy
# binding, no slurmctld): every data symbol must resolve at load time, init()
# must succeed without starting anything, and the factor must be Slurm's
# classic 2^(-U/S) (U = 0.5, S = 0.5: 2^-1 = 0.5; U = 0.25, S = 0.5: 2^-0.5).
set -u
PLUGIN=${PLUGIN:-./plugins/priority_fairway.so}
LIB=/usr/lib/x86_64-linux-gnu/slurm-wlm/libslurmfull.so
[ -f "$LIB" ] || { echo "SKIP: $LIB missing"; exit 77; }
python3 - "$LIB" "$PLUGIN" <<'PY'
import ctypes, os, sys
lib, plugin = sys.argv[1:3]
ctypes.CDLL(lib, mode=os.RTLD_GLOBAL | os.RTLD_LAZY)
try:
    p = ctypes.CDLL(plugin, mode=os.RTLD_LAZY)
except OSError as e:
    sys.exit("FAIL: the plugin does not load outside slurmctld: %s" % e)
if p.init() != 0:
    sys.exit("FAIL: init() outside slurmctld returned non-zero")
f = p.priority_p_calc_fs_factor
f.restype = ctypes.c_double
f.argtypes = [ctypes.c_longdouble, ctypes.c_longdouble]
for u, s, want in ((0.5, 0.5, 0.5), (0.25, 0.5, 2 ** -0.5), (0.0, 0.5, 1.0), (0.5, 0.0, 0.0)):
    got = f(u, s)
    if abs(got - want) > 1e-12:
        sys.exit("FAIL: calc_fs_factor(%g, %g) = %r, want %r" % (u, s, got, want))
p.fini()
print("ok: priority_fairway.so loads and computes in a client")
PY
