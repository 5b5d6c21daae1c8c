// Placeholder for the dashboard (another engineer replaces it). Mounts on #factcrowd-dashboard or #app.
import { createApp } from 'vue'
import App from './App.vue'
import './dashboard.css'

const el = document.getElementById('factcrowd-dashboard') || document.getElementById('app')
if (el) createApp(App).mount(el)
