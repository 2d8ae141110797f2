package simcloudtest

import "syscall"

// dieWithParent makes the kernel kill simcloud when the test binary dies, even when the binary is killed
// before it can stop it.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
