// Package java is the java task driver: it runs a jar or a main class
// with the host's java, isolated exactly as the exec driver isolates its
// tasks (its namespaces, a root of the task directory with the client's
// chroot_env bound in, where the java install is found under /usr and
// /etc, a cgroup, reduced capabilities). It owns the reading of a java
// task's config into the command exec runs, and the fingerprint of the
// host's java (`java -version`).
package java
