package java

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/drivers"
	execdriver "github.com/drover-io/drover/drivers/exec"
	"github.com/drover-io/drover/drivers/internal/drivertest"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// exitTimeout bounds waits on a JVM on a loaded machine.
const exitTimeout = 120 * time.Second

// requireJava skips a test where tasks cannot be isolated or there is no
// JDK to build its program with, except in CI, which has both.
func requireJava(t *testing.T) {
	t.Helper()
	why := execdriver.Unusable()
	if why == "" {
		for _, tool := range []string{"java", "javac", "jar"} {
			if _, err := exec.LookPath(tool); err != nil {
				why = tool + " is not installed (Debian: openjdk-17-jdk-headless)"
				break
			}
		}
	}
	if why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("java driver tests need root, cgroups and a JDK in CI: %s", why)
		}
		t.Skipf("java driver tests need root, cgroups and a JDK: %s", why)
	}
}

const helloSource = `public class Hello {
    public static void main(String[] args) throws Exception {
        System.out.println("hello " + String.join(",", args) + " heap=" + System.getProperty("drover.test"));
        System.out.println("pid1=" + ProcessHandle.of(1).flatMap(p -> p.info().command()).orElse("?"));
        System.out.println("secret=" + new java.io.File(args.length > 0 ? args[0] : "/nope").exists());
        if (args.length > 1 && args[1].equals("sleep")) {
            System.out.println("sleeping");
            Thread.sleep(1000000);
        }
    }
}
`

// buildHello compiles Hello into dir/classes and packs it into
// dir/hello.jar, whose manifest names its main class.
func buildHello(t *testing.T, dir string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "Hello.java")
	must.NoError(t, os.WriteFile(src, []byte(helloSource), 0o644))
	classes := filepath.Join(dir, "classes")
	run := func(name string, args ...string) {
		out, err := exec.Command(name, args...).CombinedOutput()
		must.NoError(t, err, must.Sprintf("%s: %s", name, out))
	}
	run("javac", "-d", classes, src)
	run("jar", "--create", "--file", filepath.Join(dir, "hello.jar"), "--main-class", "Hello", "-C", classes, ".")
}

func newTestDriver(t *testing.T) *Driver {
	t.Helper()
	exe, err := os.Executable()
	must.NoError(t, err)
	plugin, err := execdriver.ParsePluginConfig(nil, nil)
	must.NoError(t, err)
	return New(hclog.New(&hclog.LoggerOptions{Output: hclog.DefaultOutput, Level: hclog.Debug}), Config{
		Plugin:        plugin,
		SupervisorCmd: []string{"/usr/bin/env", supervisorTestEnv + "=1", exe},
	})
}

// newJavaTask is a java task in a fresh alloc layout with the Hello
// program in its local/ directory.
func newJavaTask(t *testing.T, config map[string]any) *drivers.TaskConfig {
	t.Helper()
	allocRoot := t.TempDir()
	cfg := &drivers.TaskConfig{
		ID:         "alloc1/app/" + strings.ReplaceAll(t.Name(), "/", "_"),
		AllocID:    "alloc1",
		Name:       "app",
		Driver:     DriverName,
		Config:     config,
		Env:        map[string]string{"PATH": "/usr/local/bin:/usr/bin:/bin"},
		AllocDir:   filepath.Join(allocRoot, "alloc"),
		TaskDir:    filepath.Join(allocRoot, "app"),
		StdoutPath: filepath.Join(allocRoot, "alloc", "logs", "app.stdout"),
		StderrPath: filepath.Join(allocRoot, "alloc", "logs", "app.stderr"),
		Resources:  &structs.Resources{CPU: 500, MemoryMB: 256},
	}
	local := filepath.Join(cfg.TaskDir, "local")
	for _, dir := range []string{filepath.Dir(cfg.StdoutPath), local} {
		must.NoError(t, os.MkdirAll(dir, 0o755))
	}
	buildHello(t, local)
	return cfg
}

func startTask(t *testing.T, d *Driver, cfg *drivers.TaskConfig) {
	t.Helper()
	_, err := d.StartTask(cfg)
	must.NoError(t, err)
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
}

func output(cfg *drivers.TaskConfig, which string) string {
	b, _ := os.ReadFile(map[string]string{"stdout": cfg.StdoutPath, "stderr": cfg.StderrPath}[which] + ".0")
	return string(b)
}

func TestJava_Fingerprint(t *testing.T) {
	requireJava(t)
	fp := newTestDriver(t).Fingerprint(context.Background())
	must.True(t, fp.Healthy, must.Sprint(fp.HealthDescription))
	must.Eq(t, "1", fp.Attributes["driver.java"])
	out, err := exec.Command("java", "-version").CombinedOutput()
	must.NoError(t, err)
	must.StrContains(t, string(out), `"`+fp.Attributes["driver.java.version"]+`"`)
	must.StrContains(t, fp.Attributes["driver.java.runtime"], "Runtime Environment")
	must.StrContains(t, fp.Attributes["driver.java.vm"], "VM")

	// Where java does not answer, the driver is not detected.
	d := newTestDriver(t)
	d.version = &versionProbe{java: filepath.Join(t.TempDir(), "no-java")}
	fp = d.Fingerprint(context.Background())
	must.False(t, fp.Detected)
	must.False(t, fp.Healthy)
	must.StrContains(t, fp.HealthDescription, "no-java -version")
}

// TestJava_RunsAJarIsolated: the jar runs with its JVM options and args,
// as PID 1 of its namespace, without sight of the host's files.
func TestJava_RunsAJarIsolated(t *testing.T) {
	requireJava(t)
	secret := filepath.Join(t.TempDir(), "secret")
	must.NoError(t, os.WriteFile(secret, []byte("x"), 0o644))
	d := newTestDriver(t)
	cfg := newJavaTask(t, map[string]any{
		"jar_path":    "local/hello.jar",
		"jvm_options": []any{"-Xmx64m", "-Ddrover.test=set"},
		"args":        []any{secret},
	})
	startTask(t, d, cfg)
	res := drivertest.WaitResult(t, d, cfg.ID, exitTimeout)
	must.Eq(t, 0, res.ExitCode, must.Sprint(output(cfg, "stderr")))
	out := output(cfg, "stdout")
	must.StrContains(t, out, "hello "+secret+" heap=set")
	must.StrContains(t, out, "secret=false")
	must.StrContains(t, out, "pid1=/usr/lib/jvm/")
}

func TestJava_RunsAClassOnItsClassPath(t *testing.T) {
	requireJava(t)
	d := newTestDriver(t)
	cfg := newJavaTask(t, map[string]any{"class": "Hello", "class_path": "${NOMAD_TASK_DIR}/classes", "args": []any{"/etc/hostname"}})
	// As the client interpolates it: the task's host path, which the
	// driver rewrites to the task's root.
	cfg.Config["class_path"] = filepath.Join(cfg.TaskDir, "local", "classes")
	startTask(t, d, cfg)
	res := drivertest.WaitResult(t, d, cfg.ID, exitTimeout)
	must.Eq(t, 0, res.ExitCode, must.Sprint(output(cfg, "stderr")))
	must.StrContains(t, output(cfg, "stdout"), "hello /etc/hostname heap=null")
}

// TestJava_StopKillsTheJVM: a stop, as max_run_duration makes one,
// kills the JVM, which exec's cgroup holds, within the kill timeout.
func TestJava_StopKillsTheJVM(t *testing.T) {
	requireJava(t)
	d := newTestDriver(t)
	cfg := newJavaTask(t, map[string]any{"jar_path": "local/hello.jar", "args": []any{"/nope", "sleep"}})
	startTask(t, d, cfg)
	waitfor.True(t, "the JVM to start", func() bool { return strings.Contains(output(cfg, "stdout"), "sleeping") }, wait.Timeout(exitTimeout))
	must.NoError(t, d.StopTask(cfg.ID, 2*time.Second, "SIGINT"))
	res := drivertest.WaitResult(t, d, cfg.ID, exitTimeout)
	must.NonZero(t, res.Signal+res.ExitCode, must.Sprint(fmt.Sprintf("%+v", res)))
}

func TestJava_RefusesABadConfigAtStart(t *testing.T) {
	requireJava(t)
	d := newTestDriver(t)
	cfg := newJavaTask(t, map[string]any{"args": []any{"x"}})
	_, err := d.StartTask(cfg)
	must.ErrorContains(t, err, `"jar_path" and "class": one must be set`)
}
