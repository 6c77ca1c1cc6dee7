// Package clipboard stands in for github.com/atotto/clipboard v0.1.4
// (orilab's go.mod replaces it with this directory), which bubbles'
// textinput imports for its paste key (ctrl+v). It keeps that package's
// API (ReadAll, WriteAll, Primary, Unsupported) and its choice of
// helper program, but looks the program up on the first ReadAll or
// WriteAll: the original searched $PATH for xclip, xsel, wl-copy and
// the others in its package initialization, about 50 failed stat calls
// (0.1-0.25 ms) in every orilab process, a compile included, for a key
// the workbench's text fields rarely see.
//
// Written for orilab from the helpers' documented command lines (xclip
// -in/-out -selection clipboard, xsel --input/--output --clipboard,
// wl-copy and wl-paste --no-newline, termux-clipboard-set/get, clip.exe
// and powershell.exe Get-Clipboard); it supports the Unix-like systems
// orilab builds on.
package clipboard

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// Primary, set before the first use, selects the primary selection (the
// helper run without its clipboard arguments) instead of the clipboard.
var Primary bool

// Unsupported reports, once ReadAll or WriteAll has run, that no helper
// program was found. It is false before the first use.
var Unsupported bool

// ReadAll returns the clipboard's text.
func ReadAll() (string, error) {
	t := find()
	if t == nil {
		return "", errMissing
	}
	out, err := exec.Command(t.paste[0], t.paste[1:]...).Output()
	if err != nil {
		return "", err
	}
	s := string(out)
	if t.crlf {
		// clip.exe's counterpart, PowerShell's Get-Clipboard, ends the
		// text with a CR LF of its own.
		s = strings.TrimSuffix(s, "\r\n")
	}
	return s, nil
}

// WriteAll puts text on the clipboard.
func WriteAll(text string) error {
	t := find()
	if t == nil {
		return errMissing
	}
	cmd := exec.Command(t.copy[0], t.copy[1:]...)
	cmd.Stdin = strings.NewReader(text)
	return cmd.Run()
}

var errMissing = errors.New("no clipboard utilities available: install xsel, xclip, wl-clipboard or Termux:API's termux-clipboard-get/set")

// tool is a pair of helper command lines.
type tool struct {
	copy, paste []string
	crlf        bool
}

// tools are the candidates in the order they are tried; wayland only
// where WAYLAND_DISPLAY is set.
var (
	wayland = tool{copy: []string{"wl-copy"}, paste: []string{"wl-paste", "--no-newline"}}
	others  = []tool{
		{copy: []string{"xclip", "-in", "-selection", "clipboard"}, paste: []string{"xclip", "-out", "-selection", "clipboard"}},
		{copy: []string{"xsel", "--input", "--clipboard"}, paste: []string{"xsel", "--output", "--clipboard"}},
		{copy: []string{"termux-clipboard-set"}, paste: []string{"termux-clipboard-get"}},
		{copy: []string{"clip.exe"}, paste: []string{"powershell.exe", "Get-Clipboard"}, crlf: true},
	}
)

var (
	once  sync.Once
	found *tool
)

// find returns the first helper pair whose programs are both on $PATH,
// looked up once, or nil (and sets Unsupported).
func find() *tool {
	once.Do(func() {
		cands := others
		if os.Getenv("WAYLAND_DISPLAY") != "" {
			cands = append([]tool{wayland}, others...)
		}
		for _, t := range cands {
			if onPath(t.copy[0]) && onPath(t.paste[0]) {
				if Primary {
					t.copy, t.paste = t.copy[:1], t.paste[:1]
				}
				found = &t
				return
			}
		}
		Unsupported = true
	})
	return found
}

func onPath(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}
