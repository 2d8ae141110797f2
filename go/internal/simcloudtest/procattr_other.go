//go:build !linux

package simcloudtest

import "syscall"

// dieWithParent has no equivalent outside Linux: there, only Stop (deferred by Run) ends simcloud.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{}
}
