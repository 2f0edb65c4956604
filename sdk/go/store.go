package keypanel

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Store keeps the last good offline token per license key and device, the latest time the server
// signed, and an air-gapped request still unanswered, each under its own id. Whatever comes back
// from a store is verified again before it is believed. The ids and values are the same in every
// KeyPanel SDK (sdk/conformance/README.md), so a FileStore's file is the TypeScript SDK's fileStore's.
type Store interface {
	// Get returns the value and whether there is one.
	Get(id string) (string, bool, error)
	Set(id, value string) error
	Delete(id string) error
}

// MemoryStore keeps entries while the process lives.
type MemoryStore struct {
	mu      sync.Mutex
	entries map[string]string
}

// NewMemoryStore makes an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{entries: map[string]string{}} }

func (m *MemoryStore) Get(id string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.entries[id]
	return v, ok, nil
}

func (m *MemoryStore) Set(id, value string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries[id] = value
	return nil
}

func (m *MemoryStore) Delete(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.entries, id)
	return nil
}

// FileStore keeps entries in one JSON file (mode 0600, replaced whole on each change).
type FileStore struct {
	Path string
	mu   sync.Mutex
}

// NewFileStore stores in the file at path.
func NewFileStore(path string) *FileStore { return &FileStore{Path: path} }

func (f *FileStore) load() (map[string]string, error) {
	entries := map[string]string{}
	raw, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return entries, nil
	}
	if err != nil {
		return nil, err
	}
	var all map[string]interface{}
	if json.Unmarshal(raw, &all) == nil {
		for k, v := range all {
			if s, ok := v.(string); ok {
				entries[k] = s
			}
		}
	}
	return entries, nil
}

func (f *FileStore) save(entries map[string]string) error {
	raw, err := json.Marshal(entries)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), ".keypanel-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), f.Path)
}

func (f *FileStore) Get(id string) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	entries, err := f.load()
	if err != nil {
		return "", false, err
	}
	v, ok := entries[id]
	return v, ok, nil
}

func (f *FileStore) Set(id, value string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	entries, err := f.load()
	if err != nil {
		return err
	}
	entries[id] = value
	return f.save(entries)
}

func (f *FileStore) Delete(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	entries, err := f.load()
	if err != nil {
		return err
	}
	if _, ok := entries[id]; !ok {
		return nil
	}
	delete(entries, id)
	return f.save(entries)
}
