// The researcher dashboard: mounts on #factcrowd-dashboard (served at / by Django, login required).
import { createApp } from 'vue'
import App from './App.vue'
import { setCsrf } from './api.js'
import './dashboard.css'

const el = document.getElementById('factcrowd-dashboard') || document.getElementById('app')
if (el) {
  setCsrf(el.dataset.csrf)
  createApp(App, { user: el.dataset.user || '', logoutUrl: el.dataset.logoutUrl || '/accounts/logout/' }).mount(el)
}
