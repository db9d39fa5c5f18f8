// Package taskuser resolves a task's `user` to the host's numeric IDs, the
// one lookup the drivers that start host processes (raw_exec, exec) share.
package taskuser

import (
	"fmt"
	"os/user"
	"strconv"
)

// IDs are a host user's numeric IDs: its user, its primary group and the
// groups it belongs to.
type IDs struct {
	UID, GID uint32
	Groups   []uint32
}

// Lookup resolves the host user name; its errors name the task user.
func Lookup(name string) (IDs, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return IDs{}, fmt.Errorf("task user %q: %w", name, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return IDs{}, fmt.Errorf("task user %q: uid %q: %w", name, u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return IDs{}, fmt.Errorf("task user %q: gid %q: %w", name, u.Gid, err)
	}
	ids := IDs{UID: uint32(uid), GID: uint32(gid)}
	// A user the group database cannot list runs with its primary group.
	gids, _ := u.GroupIds()
	for _, g := range gids {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil {
			ids.Groups = append(ids.Groups, uint32(n))
		}
	}
	return ids, nil
}
