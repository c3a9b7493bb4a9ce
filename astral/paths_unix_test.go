//go:build unix

package astral

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// specialFiles makes, in dir, one of each kind of file an index path must
// not be: a FIFO, a directory, a socket, a character device (where the
// process may make one; /dev/null otherwise, for loads only) and symbolic
// links to them. It returns name -> path and whether the device is ours.
func specialFiles(t *testing.T, dir string) (map[string]string, bool) {
	paths := map[string]string{
		"fifo":      filepath.Join(dir, "fifo"),
		"directory": filepath.Join(dir, "directory"),
		"socket":    filepath.Join(dir, "socket"),
		"device":    filepath.Join(dir, "null"),
	}
	require.NoError(t, syscall.Mkfifo(paths["fifo"], 0o644))
	require.NoError(t, os.Mkdir(paths["directory"], 0o755))
	l, err := net.Listen("unix", paths["socket"])
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	// The same device as /dev/null (1, 3), made where a save may try it.
	ownDevice := syscall.Mknod(paths["device"], syscall.S_IFCHR|0o666, 1<<8|3) == nil
	if !ownDevice {
		paths["device"] = "/dev/null"
	}
	for _, name := range []string{"fifo", "device"} {
		link := filepath.Join(dir, "link-to-"+name)
		require.NoError(t, os.Symlink(paths[name], link))
		paths["link to "+name] = link
	}
	return paths, ownDevice
}

// within runs f, failing the test if it has not returned after a while
// (a blocking open would hang the test run otherwise).
func within[T any](t *testing.T, what string, f func() T) T {
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: still blocked after 20 s", what)
		panic("unreachable")
	}
}

// TestOpenFileRefusesSpecialFiles: a FIFO, device, directory or socket,
// or a link to one, is refused with ErrIO at once, never opened blocking;
// a link to an index file loads it.
func TestOpenFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	paths, _ := specialFiles(t, dir)
	kinds := map[string]string{"fifo": "a FIFO", "directory": "a directory", "socket": "a socket",
		"device": "a character device", "link to fifo": "a FIFO", "link to device": "a character device"}
	for name, path := range paths {
		for _, opts := range [][]OpenOption{nil, {VerifyInBackground()}} {
			err := within(t, name, func() error {
				_, err := OpenFile(nil, path, opts...)
				return err
			})
			require.ErrorIs(t, err, ErrIO, name)
			require.ErrorContains(t, err, path+" is "+kinds[name]+": only a regular file is loaded")
		}
	}

	x := testIndex(t, nil, KindFlat, Dot, 50, 8)
	file := filepath.Join(dir, "real.idx")
	require.NoError(t, x.SaveFile(file))
	link := filepath.Join(dir, "link.idx")
	require.NoError(t, os.Symlink("real.idx", link))
	m, err := OpenFile(nil, link)
	require.NoError(t, err, "a link to an index file is followed on load")
	require.Equal(t, answers(t, x, 3), answers(t, m, 3))
	require.NoError(t, m.Close())
}

// TestSaveFileRefusesSpecialFiles: a save over anything but a regular
// file fails with ErrIO and leaves it as it was, with no temporary file
// behind; a link is not followed, so its target stays untouched too.
func TestSaveFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	paths, ownDevice := specialFiles(t, dir)
	if !ownDevice {
		delete(paths, "device") // never try to replace the real /dev/null
		t.Log("no mknod here: the device case saves over a link to /dev/null only")
	}
	target := filepath.Join(dir, "target.idx")
	require.NoError(t, os.WriteFile(target, []byte("not replaced"), 0o644))
	paths["link to file"] = filepath.Join(dir, "link-to-file")
	require.NoError(t, os.Symlink("target.idx", paths["link to file"]))
	paths["dangling link"] = filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink("nowhere.idx", paths["dangling link"]))

	before := map[string]fs.FileMode{}
	for name, path := range paths {
		fi, err := os.Lstat(path)
		require.NoError(t, err)
		before[name] = fi.Mode()
	}
	x := testIndex(t, nil, KindHNSW, L2, 60, 8)
	for name, path := range paths {
		err := within(t, name, func() error { return x.SaveFile(path) })
		require.ErrorIs(t, err, ErrIO, name)
		require.ErrorContains(t, err, "only a regular file is replaced by a save (nothing was written)", name)
		fi, err := os.Lstat(path)
		require.NoError(t, err)
		require.Equal(t, before[name], fi.Mode(), "%s was replaced", name)
	}
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "not replaced", string(got))
	_, err = os.Lstat(filepath.Join(dir, "nowhere.idx"))
	require.ErrorIs(t, err, fs.ErrNotExist, "a dangling link's target is not created")
	leftovers, err := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	require.NoError(t, err)
	require.Empty(t, leftovers)
}

// TestSaveFileKeepsMode: the file a save replaces keeps its permission
// bits, whatever the umask; a new file gets 0644.
func TestSaveFileKeepsMode(t *testing.T) {
	dir := t.TempDir()
	x := testIndex(t, nil, KindFlat, Cosine, 40, 8)
	for _, mode := range []fs.FileMode{0o600, 0o640, 0o444, 0o755} {
		path := filepath.Join(dir, mode.String()+".idx")
		require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))
		require.NoError(t, os.Chmod(path, mode))
		require.NoError(t, x.SaveFile(path))
		fi, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, mode, fi.Mode(), "replacing a %v file", mode)
		require.Equal(t, saved(t, x), must(os.ReadFile(path)))
	}
	fresh := filepath.Join(dir, "new.idx")
	require.NoError(t, x.SaveFile(fresh))
	fi, err := os.Stat(fresh)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o644), fi.Mode())
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
