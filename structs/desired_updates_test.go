package structs

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestDesiredUpdates_Updates(t *testing.T) {
	u := &DesiredUpdates{Ignore: 1, Place: 2, Stop: 3, Migrate: 4, InPlaceUpdate: 5, DestructiveUpdate: 6, RescheduleLater: 7}
	must.Eq(t, map[string]uint64{
		UpdateTypeIgnore:            1,
		UpdateTypeCreate:            2,
		UpdateTypeDestroy:           3,
		UpdateTypeMigrate:           4,
		UpdateTypeInPlaceUpdate:     5,
		UpdateTypeDestructiveUpdate: 6,
	}, u.Updates())
	must.Nil(t, (*DesiredUpdates)(nil).Updates())
	must.Nil(t, (&DesiredUpdates{RescheduleNow: 1}).Updates())
}
