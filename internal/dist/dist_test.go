package dist_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMakeDist builds the release archives for this machine's platform and
// one foreign one, as a release does (`make dist`): each archive holds the
// three programs and the README, SHA256SUMS matches the archives, the
// native programs run and print the version they were stamped with, and
// the foreign ones are executables for their own OS and architecture.
func TestMakeDist(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make is needed to test `make dist`: %v", err)
	}
	native := runtime.GOOS + "/" + runtime.GOARCH
	foreign := "windows/arm64"
	out := t.TempDir()
	const version = "v9.9.9-disttest"
	cmd := exec.Command("make", "-C", filepath.Join("..", ".."), "dist", "DIST="+out, "VERSION="+version, "PLATFORMS="+native+" "+foreign)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make dist: %v\n%s", err, b)
	}
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{native, foreign} {
		goos, goarch, _ := strings.Cut(p, "/")
		name := "hermes_" + version + "_" + goos + "_" + goarch
		archive := filepath.Join(out, name+".tar.gz")
		data, err := os.ReadFile(archive)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		sum := sha256.Sum256(data)
		if !strings.Contains(string(sums), hex.EncodeToString(sum[:])+"  "+name+".tar.gz") {
			t.Errorf("SHA256SUMS does not list %s with its checksum:\n%s", name, sums)
		}
		files := untar(t, data, filepath.Join(out, "x-"+goos+"-"+goarch))
		exe := ""
		if goos == "windows" {
			exe = ".exe"
		}
		for _, prog := range []string{"hermes-tools-mcp", "hermes-migrate", "hermes"} {
			path, ok := files[name+"/"+prog+exe]
			if !ok {
				t.Errorf("%s lacks %s%s: %v", name, prog, exe, files)
				continue
			}
			if p == native {
				b, err := exec.Command(path, "--version").CombinedOutput()
				if err != nil || !strings.Contains(string(b), version) {
					t.Errorf("%s --version: %v: %q, want it to name %s", prog, err, b, version)
				}
				continue
			}
			checkExecutable(t, path, goos, goarch)
		}
		if _, ok := files[name+"/README.md"]; !ok {
			t.Errorf("%s lacks README.md", name)
		}
	}
}

// untar unpacks a gzipped tar into dir and returns its files by name.
func untar(t *testing.T, data []byte, dir string) map[string]string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	files := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, os.FileMode(h.Mode)&0o755); err != nil {
			t.Fatal(err)
		}
		files[h.Name] = dst
	}
}

// checkExecutable reads a foreign program's header: the format of its OS
// and the machine of its architecture.
func checkExecutable(t *testing.T, path, goos, goarch string) {
	t.Helper()
	switch goos {
	case "windows":
		f, err := pe.Open(path)
		if err != nil {
			t.Errorf("%s is not a Windows executable: %v", path, err)
			return
		}
		defer f.Close()
		want := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[goarch]
		if f.Machine != want {
			t.Errorf("%s is for machine %#x, want %s", path, f.Machine, goarch)
		}
	case "darwin":
		f, err := macho.Open(path)
		if err != nil {
			t.Errorf("%s is not a macOS executable: %v", path, err)
			return
		}
		defer f.Close()
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
		if f.Cpu != want {
			t.Errorf("%s is for %v, want %s", path, f.Cpu, goarch)
		}
	default:
		f, err := elf.Open(path)
		if err != nil {
			t.Errorf("%s is not an ELF executable: %v", path, err)
			return
		}
		defer f.Close()
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
		if f.Machine != want {
			t.Errorf("%s is for %v, want %s", path, f.Machine, goarch)
		}
	}
}
