// The Akte page's documents: drop or choose several files, each uploaded on its own with its
// progress and its own answer (a refused file does not stop the others); while a text is being
// read, its status follows until it is done. Without this script the form posts as usual.
const form = document.getElementById("upload");
const section = document.getElementById("dokumente");

function csrf() {
  return form.querySelector("input[name=csrfmiddlewaretoken]").value;
}

function row(name) {
  const li = document.createElement("li");
  li.textContent = `${name}: wird hochgeladen …`;
  form.querySelector(".upload__liste").append(li);
  return li;
}

function send(file) {
  const li = row(file.name);
  const maxMb = Number(form.dataset.maxMb || 25);
  if (file.size > maxMb * 1024 * 1024) {
    li.textContent = `${file.name}: zu groß (höchstens ${maxMb} MB).`;
    li.className = "upload__fehler";
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    const data = new FormData();
    data.append("datei", file);
    data.append("csrfmiddlewaretoken", csrf());
    xhr.open("POST", form.action);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) li.textContent = `${file.name}: ${Math.round((e.loaded / e.total) * 100)} %`;
    };
    xhr.onload = () => {
      let body = {};
      try { body = JSON.parse(xhr.responseText); } catch { /* an error page */ }
      const ok = xhr.status === 201;
      li.textContent = ok ? `${file.name}: hochgeladen – ${body.dokument.extraktion.text}.`
                          : `${file.name}: ${body.detail || "Hochladen fehlgeschlagen."}`;
      li.className = ok ? "upload__ok" : "upload__fehler";
      resolve(ok);
    };
    xhr.onerror = () => {
      li.textContent = `${file.name}: keine Verbindung zum Server.`;
      li.className = "upload__fehler";
      resolve(false);
    };
    xhr.send(data);
  });
}

async function upload(files) {
  const results = [];
  for (const file of files) results.push(await send(file));
  if (results.some(Boolean)) setTimeout(() => location.reload(), 800);
}

if (form) {
  const zone = form.querySelector(".upload__zone");
  const input = form.querySelector("input[type=file]");
  form.classList.add("upload--js");
  for (const type of ["dragenter", "dragover"]) {
    zone.addEventListener(type, (e) => { e.preventDefault(); zone.classList.add("upload__zone--ueber"); });
  }
  for (const type of ["dragleave", "drop"]) {
    zone.addEventListener(type, () => zone.classList.remove("upload__zone--ueber"));
  }
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    upload([...e.dataTransfer.files]);
  });
  input.addEventListener("change", () => {
    upload([...input.files]);
    input.value = "";
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    upload([...input.files]);
  });
}

// While a text is being read: its progress, then the page again with the text.
if (section && section.dataset.poll) {
  const poll = async () => {
    const response = await fetch(section.dataset.poll, { headers: { Accept: "application/json" } });
    if (!response.ok) return;
    const dokumente = await response.json();
    let pending = false;
    for (const dok of dokumente) {
      const badge = document.querySelector(`#dokument-${dok.id} [data-extraktion]`);
      if (!dok.extraktion || !badge) continue;
      const running = ["ausstehend", "laeuft"].includes(dok.extraktion.status);
      pending ||= running;
      badge.textContent = running ? `${dok.extraktion.text} · ${dok.extraktion.fortschritt} %` : dok.extraktion.text;
    }
    if (pending) setTimeout(poll, 2000);
    else location.reload();
  };
  setTimeout(poll, 1500);
}
